"""Normalisers make two runs of a session read the same; secrets are masked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from scenarist.errors import ScenaristError
from scenarist.record.normalise import MASK, load_hook, mask_secrets, normaliser


@pytest.mark.parametrize(("text", "want"), [
    ("id 123e4567-e89b-12d3-a456-426614174000.", "id <UUID>."),
    ("at 2026-11-26T21:10:03.123+01:00 ok", "at <TIMESTAMP> ok"),
    ("at 2026-11-26 21:10 ok", "at <TIMESTAMP> ok"),
    ("on 2026-11-26, fine", "on <DATE>, fine"),
    ("see /tmp/pytest-of-ci/pytest-41/x.txt now", "see <TMP> now"),
    ("in /private/var/folders/ab/cd_ef/T/tmpq1 now", "in <TMP> now"),
    ("cd /tmp/run1/work/src && ls", "cd <WORKSPACE>/src && ls"),
    ("version 1.2.3-4 and 2026-13-40", "version 1.2.3-4 and 2026-13-40"),
])
def test_builtin_normalisers(text: str, want: str) -> None:
    assert normaliser("/tmp/run1/work")(text) == want


def test_two_runs_of_the_same_prompt_normalise_alike() -> None:
    one = "Today is 2026-11-26. Work in /tmp/a1/work, session 0f8fad5b-d9cb-469f-a165-70867728950e"
    two = "Today is 2026-11-27. Work in /tmp/b7/work, session 7c9e6679-7425-40de-944b-e07fc1f90ae7"
    assert normaliser("/tmp/a1/work")(one) == normaliser("/tmp/b7/work")(two)


@pytest.mark.parametrize("secret", [
    "Authorization: Bearer abcdefgh12345678", '"authorization": "Basic dXNlcjpwYXNz"',
    "Cookie: session=abc123", "x-api-key: k-123456", "OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234",
    "token sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "ghp_abcdefghijklmnopqrstuvwxyz0123",
    '{"api_key": "s3cr3t"}',
])
def test_secrets_are_masked(secret: str) -> None:
    masked = mask_secrets(f"before {secret} after")
    assert MASK in masked and masked.startswith("before ") and masked.endswith(" after")
    value = secret.split()[-1].strip('"}').split("=")[-1]
    assert value not in masked


def test_a_user_hook_runs_after_the_builtins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "myhooks.py").write_text(
        "import re\n"
        "def build_ids(text):\n    return re.sub(r'build-\\d+', 'build-N', text)\n"
        "def broken(text):\n    return 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    apply = normaliser(None, ["myhooks:build_ids"])
    assert apply("build-42 on 2026-01-02") == "build-N on <DATE>"
    assert load_hook("myhooks:build_ids")("build-7") == "build-N"
    with pytest.raises(ScenaristError, match="returned int"):
        load_hook("myhooks:broken")("x")
    for spec, message in [("nohooks", "module:function"), ("no_such_mod:f", "cannot import"),
                          ("myhooks:missing", "no function")]:
        with pytest.raises(ScenaristError, match=message):
            load_hook(spec)
    sys.modules.pop("myhooks", None)


def test_code_that_names_a_secret_is_not_a_secret() -> None:
    code = 'api_key = os.environ["API_KEY"]\npassword: str = ""\ntoken = get_token()\n'
    assert mask_secrets(code) == code
