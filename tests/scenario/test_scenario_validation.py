"""The load-time checks of the reference notes: each names file:line:col, path and a fix."""

from __future__ import annotations

import pytest
from scenario_testutil import errors, load, one_error, timeline

from scenarist.scenario import ScenarioError, load_scenario_text

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGNgYGAAAAAEAAH2FzhVAAAAAElFTkSuQmCC"


def caps(**prompt: bool) -> str:
    flags = ", ".join(f"{k}: {str(v).lower()}" for k, v in prompt.items())
    return f"name: t\nacp:\n  capabilities:\n    promptCapabilities: {{{flags}}}\n"


def test_issue_renders_location_path_and_hint() -> None:
    issue = one_error(timeline("- baseTimeDelta: soon\n"), "baseTimeDelta must be")
    text = str(issue)
    assert text.startswith(f"{issue.file}:3:20: error: ")
    assert "(at timeline[0].baseTimeDelta)" in text and "\n  hint: " in text


def test_all_errors_of_a_file_are_reported_together() -> None:
    found = errors(timeline("""
        - baseTimeDelta: -1
        - agentEdits: {linesAdded: 1}
        - llmResponse: [{assistant: [[1, {type: diff, path: rel.txt, newText: x}]]}]
    """, header="tags: 3\n"))
    assert len(found) >= 4
    assert [i.line for i in found] == sorted(i.line for i in found)


def test_name_required_and_timeline_list() -> None:
    one_error("timeline: []\n", "missing required key 'name'")
    one_error("name: '  '\ntimeline: []\n", "must not be empty")
    one_error("name: t\ntimeline: {a: 1}\n", "expected a list")


@pytest.mark.parametrize(("block", "needle"), [
    ("{type: image, mimeType: image/bmp, data: " + PNG + "}", "not supported"),
    ("{type: image, mimeType: image/png}", "needs 'path' or 'data'"),
    ("{type: image, mimeType: image/png, data: '!!notbase64'}", "not valid base64"),
    ("{type: image, mimeType: image/jpeg, data: " + PNG + "}", "does not look like image/jpeg"),
    ("{type: audio, mimeType: audio/wav, path: images/diagram.png}", "does not look like audio/wav"),
    ("{type: diff, path: relative.txt, newText: x}", "must be absolute"),
    ("{type: plan, entries: [{content: a, priority: urgent}]}", "must be one of high, medium, low"),
    ("{type: plan, entries: [{content: a, status: done}]}", "must be one of pending"),
    ("{type: text, text: a, annotations: {priority: 1.5}}", "between 0 and 1"),
    ("{type: text, text: a, annotations: {audience: [robot]}}", "audience"),
    ("{type: resource, resource: {uri: 'file:///a'}}", "needs 'text' or 'blob'"),
    ("{type: video, data: x}", "is not one of text, image"),
    ("{text: no type}", "needs a 'type'"),
])
def test_content_block_checks(block: str, needle: str) -> None:
    issue = one_error(timeline(f"- llmResponse: [{{assistant: [[1, {block}]]}}]\n"), needle)
    assert issue.line == 3 and issue.path.startswith("timeline[0].llmResponse[0].assistant[0]")
    assert issue.hint


def test_valid_content_blocks_and_base64_image() -> None:
    s = load(timeline(f"- llmResponse: [{{assistant: [[1, {{type: image, mimeType: image/png, data: {PNG}}}]]}}]\n"))
    assert not s.warnings


@pytest.mark.parametrize(("block", "cap"), [
    (f"{{type: image, mimeType: image/png, data: {PNG}}}", "image"),
    ("{type: audio, mimeType: audio/wav, path: audio/note.wav}", "audio"),
    ("{type: resource, resource: {uri: 'file:///a', text: x}}", "embeddedContext"),
])
def test_prompt_content_needs_the_prompt_capability(block: str, cap: str) -> None:
    body = f"- userInputs: [[0, [{{type: text, text: hi}}, {block}]]]\n"
    issue = one_error(timeline(body, caps()), f"promptCapabilities.{cap} is not true")
    assert issue.path == "timeline[0].userInputs[0][1][1]"
    assert not load(timeline(body, caps(**{cap: True}))).warnings
    assert not load(timeline(body)).warnings  # no acp section: nothing advertised to check


def test_diff_and_plan_cannot_be_prompts() -> None:
    one_error(timeline("- userInputs: [[0, {type: diff, path: /a, newText: b}]]\n"), "cannot be sent as a prompt")


def test_mcp_transports_must_be_advertised() -> None:
    text = """
        name: t
        acp:
          capabilities: {mcpCapabilities: {http: false}}
          mcpServers:
            - {name: a, command: /bin/a}
            - {name: b, type: http, url: "http://127.0.0.1:1/mcp"}
            - {name: c, type: sse, url: "http://127.0.0.1:1/sse"}
            - {type: stdio}
        timeline: []
    """
    found = errors(text)
    messages = [i.message for i in found]
    assert any("uses the http transport" in m for m in messages)
    assert any("uses the sse transport" in m for m in messages)
    assert any("missing required key 'name'" in m for m in messages)
    assert any("missing required key 'command'" in m for m in messages)
    ok = load(text.replace("http: false", "http: true, sse: true").replace("{type: stdio}", "{name: d, command: /bin/d}"))
    assert any("deprecated" in w.message for w in ok.warnings)


def test_acp_cwd_absolute() -> None:
    one_error("name: t\nacp: {cwd: work}\ntimeline: []\n", "absolute")


def test_load_session_and_session_start_go_together() -> None:
    issue = one_error(timeline("- sessionStart\n"), "does not advertise acp.capabilities.loadSession")
    assert (issue.line, issue.path) == (3, "timeline[0].sessionStart")
    one_error("name: t\nacp: {capabilities: {loadSession: true}}\ntimeline: []\n", "needs exactly one sessionStart")
    header = "name: t\nacp: {capabilities: {loadSession: true}}\n"
    one_error(timeline("- sessionStart\n- sessionStart\n", header), "at most one sessionStart")


def test_set_model_requires_unstable() -> None:
    issue = one_error(timeline("- setModel: {modelId: m}\n"), "unstable")
    assert "acp: {unstable: true}" in issue.hint
    assert load(timeline("- setModel: {modelId: m}\n", "name: t\nacp: {unstable: true}\n"))


def test_permission_request_checks() -> None:
    opts = "options: [{id: a, label: A, kind: allow_once}, {id: r, label: R, kind: reject_once}]"
    one_error(timeline(f"- agentPermissionRequest: {{{opts}, granted: true, decision: {{outcome: cancelled}}}}\n"),
              "not both")
    one_error(timeline(f"- agentPermissionRequest: {{{opts}}}\n"), "needs 'decision' or 'granted'")
    one_error(timeline(f"- agentPermissionRequest: {{{opts}, decision: {{outcome: selected, optionId: zz}}}}\n"),
              "is not one of the options")
    one_error(timeline(f"- agentPermissionRequest: {{{opts}, decision: {{outcome: selected}}}}\n"),
              "needs 'optionId'")
    one_error(timeline("- agentPermissionRequest: {options: [{id: a, kind: maybe}], granted: true}\n"),
              "must be one of allow_once")
    one_error(timeline("- agentPermissionRequest: {options: [{id: r, kind: reject_once}], granted: true}\n"),
              "there is none")


def test_expected_response_fields_not_empty_and_meta_mapping() -> None:
    one_error(timeline("- userInputs: [{relativeTime: 0, input: x, expectedResponse: {stopReason: ''}}]\n"),
              "'stopReason' must not be empty")
    one_error(timeline("- initialize: {_meta: [1]}\n"), "'_meta' must be a mapping")


def test_file_reads_absolute_and_patch_exists() -> None:
    one_error(timeline("- agentFileReads: {files: [{path: rel.py}]}\n"), "absolute")
    one_error(timeline("- userEdits: {patch: nope.patch}\n"), "not found")


def test_a_terminal_profile_must_exist_next_to_the_scenario() -> None:
    """terminalRef names a file the runner reads: validate refuses it when it is missing,
    at the key, with the fix; the examples' profile loads."""
    issue = one_error("name: t\nterminalRef: configs/nope.json\ntimeline: []\n",
                      "terminalRef 'configs/nope.json' not found")
    assert (issue.line, issue.col, issue.path) == (2, 14, "terminalRef")
    assert "relative to the scenario file's folder" in issue.hint
    one_error("name: t\nterminalRef: ../outside.json\ntimeline: []\n", "outside the scenario")
    ok = load("name: t\nterminalRef: configs/terminal/default-100x30.json\ntimeline: []\n")
    assert ok.terminal_ref == "configs/terminal/default-100x30.json"


def test_error_element_checks() -> None:
    one_error(timeline("- llmResponse: [{error: {errorType: x, statusCode: 200}}]\n"), "not an HTTP error")
    one_error(timeline("- llmResponse: [{error: {message: m}}]\n"), "missing required key 'errorType'")


def test_repo_and_expect_sections() -> None:
    s = load("""
        name: t
        repo:
          init: true
          branch: main
          files:
            - {path: a.txt, contents: hi}
            - {path: b.bin, contents: {base64: AAE=}}
        ah: {cmd: task, flags: [--x], env: {N: 1}}
        expect: {exitCode: 0, artifacts: [{type: taskFile, pattern: "*.txt"}]}
        timeline: []
    """)
    assert s.repo is not None and [f.data for f in s.repo.files] == [b"hi", b"\x00\x01"]
    assert s.ah is not None and s.ah.env == {"N": "1"}
    assert s.expect is not None and s.expect.artifacts[0].pattern == "*.txt"
    one_error("name: t\nrepo: {dir: no-such-dir}\ntimeline: []\n", "is not a folder")
    one_error("name: t\nrepo: {files: [{path: a, contents: {base64: '@@'}}]}\ntimeline: []\n", "not valid base64")


def test_loading_raises_only_scenario_error_even_for_odd_input() -> None:
    for text in ["[", "name: [", "\x00", "name: t\ntimeline: [[[]]]", "? [a]\n: b\n", "a: *nope\n"]:
        with pytest.raises(ScenarioError):
            load_scenario_text(text)


def test_lists_of_mappings_report_bad_items_and_unknown_keys() -> None:
    """Each list of mappings names a non-mapping item by its path and warns of unknown keys."""
    acp = "acp: {capabilities: {loadSession: false}, mcpServers: [3, {name: fs, command: /bin/fs, colour: red}]}\n"
    cases = [
        (timeline("- agentPermissionRequest: {options: [7, {id: a, kind: allow_once, x: 1}], "
                  "granted: true}\n"), "timeline[0].agentPermissionRequest.options",
         "a mapping with id, label, kind"),
        (timeline("- agentPlan: {entries: [plain, {content: c, owner: me}]}\n"),
         "timeline[0].agentPlan.entries", "a mapping with content/priority/status"),
        ("name: t\nrepo: {files: [x, {path: a, contents: b, mode: 1}]}\ntimeline: []\n",
         "repo.files", "a mapping with path and contents"),
        ("name: t\n" + acp + "timeline: []\n", "acp.mcpServers", "an MCP server mapping"),
        ("name: t\nexpect: {artifacts: [1, {pattern: p, size: 2}]}\ntimeline: []\n",
         "expect.artifacts", "a mapping with type and pattern"),
    ]
    for text, list_path, want in cases:
        with pytest.raises(ScenarioError) as info:
            load(text)
        found = info.value.issues
        bad = [i for i in found if i.severity == "error"]
        assert [(i.path, want in i.message) for i in bad] == [(f"{list_path}[0]", True)], text
        warned = [i.path for i in found if i.severity == "warning"]
        assert len(warned) == 1 and warned[0].startswith(f"{list_path}[1]."), (text, warned)


def test_permission_option_ids_must_be_unique() -> None:
    issue = one_error(timeline("- agentPermissionRequest: {options: [{id: a, kind: allow_once}, "
                               "{id: a, kind: reject_once}], granted: true}\n"), "must be unique")
    assert issue.path == "timeline[0].agentPermissionRequest.options"
