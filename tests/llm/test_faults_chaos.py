"""Seeded chaos is the same every run: two ``scenarist llm --chaos 0.5 --seed 7`` servers
answer the same bounded set of requests with identical bytes (hash compared), and seed 8
answers otherwise. The Messages API is used because its answers carry no wall-clock time
(Chat and Responses carry ``created``, the second the request came)."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from scenarist.llm.process import run_server

PROMPTS = ("Plan the release", "Write the changelog", "Tag it")
ANSWERS = ("First the tests, then the notes, then the tag.",
           "The changelog lists retries, fixes and two new flags.",
           "Tagged v1.2.0 and pushed it.")
CONVERSATIONS = 12


def scenario(tmp_path: Path) -> Path:
    lines = ["name: release", "server:", "  llmApiStyle: anthropic", "timeline:"]
    for prompt, answer in zip(PROMPTS, ANSWERS, strict=True):
        lines += [f'  - userInputs: [[0, "{prompt}"]]', "  - llmResponse:",
                  f'      - assistant: [[0, "{answer}"]]']
    path = tmp_path / "release.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(path: Path, seed: int) -> tuple[str, list[dict[str, Any]]]:
    """The hash of every byte the server sent for the request set, and its journal."""
    digest = hashlib.sha256()
    with run_server(path, "--chaos", "0.5", "--seed", str(seed), "--scenario-speed", "0.01"
                    ) as srv, httpx.Client(timeout=10) as client:
        for n in range(CONVERSATIONS):
            history: list[dict[str, str]] = []
            for prompt, answer in zip(PROMPTS, ANSWERS, strict=True):
                history.append({"role": "user", "content": prompt})
                body = {"model": "m", "max_tokens": 64, "stream": n % 2 == 0,
                        "messages": history}
                got = b""
                try:
                    with client.stream("POST", f"{srv.base_url}/v1/messages", json=body,
                                       headers={"x-scenario-session": f"s{n}"}) as response:
                        got += str(response.status_code).encode()
                        for chunk in response.iter_raw():
                            got += chunk
                except httpx.HTTPError as exc:  # a cut: what came before it is the answer
                    got += type(exc).__name__.encode()
                digest.update(got + b"\0")
                history.append({"role": "assistant", "content": answer})
        journal = srv.journal()
    return digest.hexdigest(), journal


def test_the_same_seed_gives_the_same_bytes_and_another_seed_others(tmp_path: Path) -> None:
    path = scenario(tmp_path)
    first, journal = run(path, 7)
    again, journal_again = run(path, 7)
    other, _ = run(path, 8)
    assert first == again and first != other
    faults = [(e["scenario"], e.get("fault", {}).get("kind")) for e in journal]
    assert faults == [(e["scenario"], e.get("fault", {}).get("kind")) for e in journal_again]
    struck = Counter(kind for _, kind in faults if kind is not None)
    assert 8 <= sum(struck.values()) <= 28 and len(struck) >= 3  # about half, of several kinds
