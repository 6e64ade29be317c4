"""The root of every scenarist exception, and the contracts of its branches, stated once.

A caller catches at the level it cares about (as with httpx's ``HTTPError`` tree)::

    ScenaristError                     anything scenarist raises on purpose
    ├── ScenarioError                  a scenario file is wrong: every Issue has file:line:col,
    │                                  the key path, what is wrong and a hint (scenario.errors)
    ├── SelectionError                 no loaded scenario has that name or prompt; the message
    │                                  lists the nearest ones (scenario.select)
    ├── UsageError                     the command line or a config is wrong; a CLI prints the
    │   │                              message as one line and exits with ``exit_status``
    │   ├── UsageReported              argparse already printed it (scenario.cli_parser), exit 2
    │   ├── CodexUsageError            fake-codex's bad option/command/config, exit 1 as codex
    │   ├── ConfigError                a bad hub TOML config or agent table, exit 2 (hub.config)
    │   ├── StoreUrlError              a ``--store`` URL the REST server cannot open (rest.store)
    │   ├── ChaosError                 a ``--chaos`` value (or chaos header) that cannot be read
    │   │                              (faults)
    │   └── DemoError                  ``scenarist demo`` cannot go on, exit 1 (demo)
    ├── WireError                      a peer sent what the API refuses; the server answers in the
    │   │                              API's own error format (HTTP ``status`` + error body, or
    │   │                              an ``error`` frame), never with a traceback
    │   ├── RequestError               a request the real model API would refuse (llm.request_errors)
    │   ├── RequestSelectionError      no scenario answers this model API request (llm.selection)
    │   ├── PositionError              the request is past the scenario's end or strays from it
    │   │                              (llm.position)
    │   ├── ContinuationError          a previous_response_id / thread id that is none of ours
    │   │                              (llm.continuation)
    │   ├── ProtocolError              a hub client frame the hub refuses (hub.protocol)
    │   ├── Problem                    a REST request refused as problem+json (rest.problems)
    │   └── Rejected                   a step of llm.answer refused the request (internal)
    ├── FakeModelError                 a scripted failure of the in-process fake model (fake)
    ├── EditError                      an agentEdits that cannot be applied to the file (llm)
    ├── ServerStartError               a ``scenarist llm`` child did not start (llm.process)
    ├── StdinError                     a hub agent cannot take more input (hub.process)
    ├── ArgError                       a tool argument that does not fit (scenario.tools)
    ├── FrozenRecordError              a field of a frozen record assigned or deleted; also an
    │                                  ``AttributeError``, as dataclasses' (scenario.record)
    ├── FitError                       no declared tool can carry an action (llm.tool_fit; 400)
    ├── PointerError                   a bad JSON pointer (scenario.json_assert)
    ├── KeySequenceError               a modified key with no terminal sequence, ``<ctrl-1>``;
    │                                  the loader reports it located (scenario.keys)
    ├── LimitError                     a YAML document past the loader's depth/alias limits; the
    │                                  loader reports it located (scenario.source)
    ├── NotRegularFile, FileTooLarge   an input path that is a FIFO/device, or too big; also
    │                                  an ``OSError``, each caller words it (files)
    ├── Escape                         a path that would leave its root; each front end words it
    │                                  (confine)
    ├── WorkspaceError                 the llm workspace cannot be read; OutsideWorkspace: a path
    │                                  that leaves it (llm.workspace)
    ├── AgentError                     the mock agent reports it as one line; PathRefused
    │                                  (agent.workspace)
    ├── RunnerError                    ``scenarist run`` cannot set up or carry on a run; the
    │                                  result records it, the run fails (runner.errors);
    │                                  TerminalTimeout carries the screen (runner.terminal)
    ├── ScenarioFailed                 a scenario run from a test failed; also an
    │                                  ``AssertionError`` so pytest reports it as one
    │                                  (runner.result)
    ├── SessionFileError               a session file ``scenarist import`` cannot read: names
    │                                  file:line, exit 1, nothing written (record.lines)
    ├── HookError                      a ``--normalise`` hook or ``--redact`` pattern that cannot
    │                                  be loaded (record.normalise)
    ├── UnreadableRequest,              what ``scenarist record`` relays is not the API's wire
    │   UnreadableAnswer               (garbage, a cut stream); the client gets a 502 or the
    │                                  API's error event, nothing is recorded (record.history,
    │                                  record.answers)
    ├── Stopped, EndOfInput             the mock agent unwinds on a signal or a closed terminal
    │                                  (agent.cli, agent.play)
    └── FaultExit                      a scenario's exit fault: fake-codex or the mock agent
                                       unwinds, then ends with its code or signal (fault_output)

The leaves live next to the code that raises them; ``scenarist`` exports the ones users
catch. Classes that were ``ValueError``/``LookupError``/``RuntimeError``/``OSError`` still are.
Internal signals (fake-codex's ``_Help``, llm.answer's ``_Rejected``, the runner's
``_AgentGone``) are in the tree too: ``tests/test_errors.py`` walks every module of the package
and fails on any exception class outside it.
"""

from __future__ import annotations

__all__ = ["ScenaristError", "UsageError", "WireError"]


class ScenaristError(Exception):
    """Base of every exception scenarist raises on purpose; its message is for a person."""


class UsageError(ScenaristError):
    """The command line, an option value or a config is wrong: the message says what and how
    to fix it. A CLI prints it as one line on stderr, no traceback, and exits ``exit_status``
    (2 as argparse does, unless a subclass mimics a program that exits otherwise)."""

    exit_status: int = 2


class WireError(ScenaristError):
    """Something a client sent that the API refuses. A server turns it into the API's own
    error (``status`` and the provider's error body, or an ``error`` frame), so a client SDK
    raises its usual exception; it never reaches the client as a traceback or a bare 500."""

    status: int = 400
