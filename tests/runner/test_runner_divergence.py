"""``scenarist run`` with a model server (mode 2): when the program's conversation leaves the
scenario, result.json, the JUnit failure and the HTML report say where and how, as the model
server's 409 did (step, file:line, field, expected vs got, secrets masked)."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from runnerkit import write_scenario

# The program under test: an agent loop over the official openai SDK that answers the
# scenario's tool call with another result than the scenario's.
PROGRAM = """\
import openai
prompt = input()
client = openai.OpenAI(max_retries=0)
tools = [{"type": "function", "function": {"name": "shell", "parameters": {
    "type": "object", "properties": {"cmd": {"type": "string"}}, "required": ["cmd"]}}}]
messages = [{"role": "user", "content": prompt}]
first = client.chat.completions.create(model="m", messages=messages, tools=tools)
call = first.choices[0].message.tool_calls[0]
messages += [first.choices[0].message.model_dump(exclude_none=True),
             {"role": "tool", "tool_call_id": call.id,
              "content": "1 failed (token sk-secret0123456789)"}]
try:
    client.chat.completions.create(model="m", messages=messages, tools=tools)
except openai.APIStatusError as exc:
    print("refused with", exc.status_code)
input()
"""


def test_a_refused_replay_names_the_divergence_in_every_report(tmp_path: Path) -> None:
    program = tmp_path / "agent.py"
    program.write_text(PROGRAM)
    path = write_scenario(tmp_path, "replay", f"""
ah: {{cmd: {sys.executable}, flags: [{program}]}}
timeline:
  - userInputs:
      - [0, "Run the test suite"]
  - llmResponse:
      - assistant:
          - [0, "Running the tests."]
  - runCmd:
      cmd: "npm test"
      result: "all 3 tests passed"
  - llmResponse:
      - assistant:
          - [0, "All tests pass."]
  - assert:
      text: {{contains: [All tests pass]}}
""")
    done = subprocess.run(
        [sys.executable, "-m", "scenarist", "run", str(path), "--agent", "codex", "--target",
         "t", "--junit", "junit.xml", "--html", "report.html", "--timeout", "5"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    line = f"{path}:{path.read_text().splitlines().index('  - runCmd:') + 1}"

    result_json = next((tmp_path / "t").rglob("result.json"))
    summary = json.loads(result_json.read_text())
    divergence = summary["divergence"]
    assert divergence["status"] == 409
    assert divergence["step"] == "turn 0, call 1 of 1: runCmd 'npm test'"
    assert divergence["where"] == line
    assert divergence["field"] == "tool result of runCmd 'npm test'"
    assert divergence["expected"] == "all 3 tests passed"
    assert divergence["got"] == "1 failed (token ****)"
    assert summary["failures"][0].startswith("the model server refused a request (409): ")

    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    case = next(suite.iter("testcase"))
    failure = case.find("failure")
    failure = case.find("error") if failure is None else failure
    assert failure is not None, summary["failures"]
    message = failure.get("message") or ""
    assert "the model server refused a request (409)" in message
    assert "tool result of runCmd 'npm test'" in (failure.text or "")
    html = (tmp_path / "report.html").read_text()
    assert "tool result of runCmd &#x27;npm test&#x27;" in html or \
        "tool result of runCmd 'npm test'" in html
    for text in (result_json.read_text(), (tmp_path / "junit.xml").read_text(), html):
        assert "sk-secret0123456789" not in text
