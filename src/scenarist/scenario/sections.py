"""Top-level sections (repo, ah, server, acp, expect) and the checks that span the file."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from scenarist.scenario.model import (
    Acp,
    AcpCapabilities,
    Ah,
    Event,
    Expect,
    ExpectArtifact,
    McpServer,
    Repo,
    RepoFile,
    Server,
    SessionStart,
    SetModel,
)
from scenarist.scenario.report import Report, join

__all__ = ["TOP_KEYS", "check_sessions", "parse_acp", "parse_ah", "parse_expect", "parse_repo",
           "parse_server"]

TOP_KEYS = frozenset({"name", "tags", "terminalRef", "compat", "repo", "ah", "server", "acp",
                      "timeline", "expect", "description", "initialPrompt", "screen"})


def parse_repo(report: Report, top: dict[Any, Any]) -> Repo | None:
    d = report.mapping(top, "repo", "")
    if d is None:
        return None
    path = "repo"
    known = ("init", "branch", "dir", "files")
    report.unknown_keys(d, known, path)
    rel = report.string(d, "dir", path)
    dir_path = None if rel is None else report.local_path(d, "dir", path, rel, "repo.dir",
                                                           folder=True)
    files: list[RepoFile] = []
    for ip, f in report.records(d, "files", path, ("path", "contents"),
                                "a mapping with path and contents",
                                "{path: README.md, contents: 'hello'}"):
        name = report.string(f, "path", ip, required=True, nonempty=True, example="README.md")
        contents = f.get("contents", "")
        data = b""
        if isinstance(contents, str):
            data = contents.encode("utf-8")
        elif isinstance(contents, dict) and set(contents) == {"base64"} and isinstance(contents["base64"], str):
            try:
                data = base64.b64decode("".join(contents["base64"].split()), validate=True)
            except (binascii.Error, ValueError):
                report.error(contents, "base64", join(join(ip, "contents"), "base64"),
                             "not valid base64", "encode the file with 'base64 -w0'")
        elif contents is None:
            data = b""
        else:
            report.wrong_type(f, "contents", ip, "a string or {base64: '...'}", "'hello'")
        files.append(RepoFile(name or "", data))
    extra = {k: v for k, v in d.items() if k not in known}
    return Repo(report.boolean(d, "init", path), report.string(d, "branch", path), rel, dir_path,
                tuple(files), extra)


def parse_ah(report: Report, top: dict[Any, Any]) -> Ah | None:
    d = report.mapping(top, "ah", "")
    if d is None:
        return None
    report.unknown_keys(d, ("cmd", "flags", "env"), "ah")
    env_raw = report.mapping(d, "env", "ah") or {}
    env: dict[str, str] = {}
    for k, v in env_raw.items():
        if isinstance(v, (dict, list)):
            report.wrong_type(env_raw, k, "ah.env", "a string value")
            continue
        env[str(k)] = "" if v is None else (str(v).lower() if isinstance(v, bool) else str(v))
    return Ah(report.string(d, "cmd", "ah"), report.strings(d, "flags", "ah"), env)


def parse_server(report: Report, top: dict[Any, Any]) -> Server:
    d = report.mapping(top, "server", "")
    if d is None:
        return Server()
    known = ("mode", "llmApiStyle", "coalesceThinkingWithToolUse")
    return Server(report.choice(d, "mode", "server", ("none", "mock", "real"), "none"),  # type: ignore[arg-type]
                  report.choice(d, "llmApiStyle", "server", ("openai", "anthropic"), "openai"),  # type: ignore[arg-type]
                  report.boolean(d, "coalesceThinkingWithToolUse", "server", True),
                  {k: v for k, v in d.items() if k not in known})


def _pairs(report: Report, d: dict[Any, Any], key: str, path: str,
           first: str) -> tuple[tuple[str, str], ...]:
    """ACP ``env``/``headers``: a list of {name, value} (or a plain mapping)."""
    value = d.get(key)
    if value is None:
        return ()
    if isinstance(value, dict):
        return tuple((str(k), str(v)) for k, v in value.items())
    if not isinstance(value, list):
        report.wrong_type(d, key, path, "a list of {name, value}", "[{name: TOKEN, value: abc}]")
        return ()
    out = []
    kpath = join(path, key)
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get(first), str) or "value" not in item:
            report.error(value, i, join(kpath, i), f"an MCP {key} entry is {{{first}, value}}",
                         f"write {{{first}: NAME, value: '...'}}")
            continue
        out.append((item[first], str(item["value"])))
    return tuple(out)


def parse_acp(report: Report, top: dict[Any, Any]) -> Acp | None:
    d = report.mapping(top, "acp", "")
    if d is None:
        return None
    path = "acp"
    report.unknown_keys(d, ("capabilities", "cwd", "mcpServers", "unstable"), path)
    caps = None
    c = report.mapping(d, "capabilities", path)
    if c is not None:
        cpath = join(path, "capabilities")
        report.unknown_keys(c, ("loadSession", "promptCapabilities", "mcpCapabilities", "_meta"), cpath)
        pc = report.mapping(c, "promptCapabilities", cpath) or {}
        ppath = join(cpath, "promptCapabilities")
        report.unknown_keys(pc, ("image", "audio", "embeddedContext", "_meta"), ppath)
        mc = report.mapping(c, "mcpCapabilities", cpath) or {}
        mpath = join(cpath, "mcpCapabilities")
        report.unknown_keys(mc, ("http", "sse", "_meta"), mpath)
        sse = report.boolean(mc, "sse", mpath)
        if sse:
            report.warn(mc, "sse", join(mpath, "sse"), "the SSE MCP transport is deprecated in ACP",
                        "prefer http transports")
        caps = AcpCapabilities(report.boolean(c, "loadSession", cpath),
                               report.boolean(pc, "image", ppath), report.boolean(pc, "audio", ppath),
                               report.boolean(pc, "embeddedContext", ppath),
                               report.boolean(mc, "http", mpath), sse, report.meta(c, cpath))
    cwd = report.string(d, "cwd", path)
    if cwd is not None and not cwd.startswith("/"):
        report.error(d, "cwd", join(path, "cwd"), f"acp.cwd must be an absolute path, got {cwd!r}",
                     "write e.g. '/tmp/workspace'")
    servers: list[McpServer] = []
    for ip, s in report.records(d, "mcpServers", path,
                                ("name", "type", "command", "args", "env", "url", "headers", "_meta"),
                                "an MCP server mapping",
                                "{name: fs, command: /usr/bin/mcp-fs, args: [], env: []}"):
        name = report.string(s, "name", ip, required=True, nonempty=True, example="filesystem")
        transport = report.choice(s, "type", ip, ("stdio", "http", "sse"), "stdio") or "stdio"
        command = url = None
        if transport == "stdio":
            command = report.string(s, "command", ip, required=True, nonempty=True,
                                    example="/usr/local/bin/mcp-server")
        else:
            url = report.string(s, "url", ip, required=True, nonempty=True,
                                example="http://127.0.0.1:9000/mcp")
            allowed = caps is not None and (caps.mcp_http if transport == "http" else caps.mcp_sse)
            if not allowed:
                report.error(s, "type", join(ip, "type"),
                             f"MCP server {name!r} uses the {transport} transport, but "
                             f"acp.capabilities.mcpCapabilities.{transport} is not true",
                             f"set mcpCapabilities.{transport}: true, or use a stdio server")
        servers.append(McpServer(name or "", transport, command,  # type: ignore[arg-type]
                                 report.strings(s, "args", ip), _pairs(report, s, "env", ip, "name"),
                                 url, _pairs(report, s, "headers", ip, "name")))
    return Acp(caps, cwd, tuple(servers), report.boolean(d, "unstable", path))


def parse_expect(report: Report, top: dict[Any, Any]) -> Expect | None:
    d = report.mapping(top, "expect", "")
    if d is None:
        return None
    report.unknown_keys(d, ("exitCode", "artifacts"), "expect")
    artifacts: list[ExpectArtifact] = []
    for ip, a in report.records(d, "artifacts", "expect", ("type", "pattern"),
                                "a mapping with type and pattern",
                                "{type: taskFile, pattern: 'hello.py'}"):
        artifacts.append(ExpectArtifact(report.string(a, "type", ip) or "file",
                                        report.string(a, "pattern", ip, required=True) or ""))
    return Expect(report.integer(d, "exitCode", "expect", minimum=None), tuple(artifacts))


def check_sessions(report: Report, top: dict[Any, Any], acp: Acp | None,
                   events: list[Event]) -> None:
    """loadSession ⇔ exactly one sessionStart; setModel needs ``acp.unstable: true``."""
    starts = [e for e in events if isinstance(e, SessionStart)]
    load = acp is not None and acp.capabilities is not None and acp.capabilities.load_session
    for extra in starts[1:]:
        report.at(extra.line, extra.col, extra.key_path,
                  f"a timeline has at most one sessionStart; the first is at {starts[0].key_path} "
                  f"(line {starts[0].line})", "remove one of them")
    if starts and not load:
        first = starts[0]
        report.at(first.line, first.col, first.key_path,
                  "sessionStart marks the session/load boundary, but the scenario does not "
                  "advertise acp.capabilities.loadSession: true",
                  "add 'acp: {capabilities: {loadSession: true}}', or remove sessionStart")
    if load and not starts:
        report.error(top, "acp", "acp.capabilities.loadSession",
                     "acp.capabilities.loadSession is true, so the timeline needs exactly one "
                     "sessionStart (the boundary between replayed history and live events)",
                     "add '- sessionStart' where the live part begins, or set loadSession: false")
    unstable = acp is not None and acp.unstable
    for e in events:
        if isinstance(e, SetModel) and not unstable:
            report.at(e.line, e.col, e.key_path,
                      "setModel maps to ACP session/set_model, which is unstable",
                      "opt in with 'acp: {unstable: true}', or remove setModel")
