"""Symbols (``--define``, else ``AH_SCENARIO_DEFINES``) and ``rules:`` blocks resolved on raw data.

Rules are resolved before anything is typed, so a rule can produce any part of a
scenario (a section, a field, timeline items). Resolution never mutates the parsed
data: changed containers are rebuilt and told where their parts came from, so later
errors still point at the right line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from scenarist.scenario.source import Source

__all__ = ["ENV_VAR", "Symbols", "evaluate_condition", "parse_defines", "resolve_rules"]

ENV_VAR = "AH_SCENARIO_DEFINES"
Symbols = Mapping[str, bool | int | str]
_FROM_ENV: Any = object()

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_COND = re.compile(r"\s*\$([A-Za-z_][A-Za-z0-9_.\-]*)\s*(?:(==|!=|<=|>=|<|>)\s*(.*?))?\s*")
_NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def _typed(value: str) -> bool | int | str:
    low = value.lower()
    if low in ("true", "false"):
        return low == "true"
    if re.fullmatch(r"[-+]?[0-9]+", value):
        return int(value)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _pairs(items: Sequence[str], source: str) -> dict[str, bool | int | str]:
    out: dict[str, bool | int | str] = {}
    for raw in items:
        item = raw.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not _KEY.fullmatch(key):
            raise ValueError(f"{source}: {raw!r} is not KEY or KEY=VALUE "
                             "(a key is letters, digits, '_', '.', '-', starting with a letter or '_')")
        out[key] = _typed(value.strip()) if sep else True
    return out


def parse_defines(cli: Sequence[str], env: str | None = _FROM_ENV) -> dict[str, bool | int | str]:
    """Build the symbol table from the ``cli`` items (``--define``/``--scenario-define``),
    or, when there are none, from ``env`` (``K=V,FLAG=true,N=3``; the spec's fallback: the
    two are never merged).

    ``env`` defaults to ``$AH_SCENARIO_DEFINES``. A bare ``KEY`` means true; values are
    typed bool (any case) → integer → string; the last duplicate wins. Raises
    ``ValueError`` naming the bad item when a key is malformed.
    """
    if cli:
        return _pairs(list(cli), "--define")
    if env is _FROM_ENV:
        env = os.environ.get(ENV_VAR)
    return _pairs(env.split(","), f"${ENV_VAR}") if env else {}


def _literal(text: str) -> tuple[bool, Any]:
    """Parse the right-hand side of a condition: (ok, value)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return True, text[1:-1]
    if text in ("true", "false"):
        return True, text == "true"
    if _NUMBER.fullmatch(text):
        return True, float(text) if "." in text else int(text)
    return False, None


def check_condition(when: str) -> str | None:
    """Why ``when`` is not a valid condition, or None when it is."""
    m = _COND.fullmatch(when)
    if m is None:
        return "a condition is '$symbol' or '$symbol OP value' with OP one of == != < <= > >="
    op, rhs = m.group(2), m.group(3)
    if op is None:
        return None
    ok, value = _literal(rhs or "")
    if not ok:
        return (f"{rhs!r} is not a number, true/false or a quoted string"
                if rhs else f"'{op}' needs a value after it")
    if isinstance(value, (str, bool)) and op not in ("==", "!="):
        return f"'{op}' compares numbers; strings and booleans support only == and !="
    return None


def evaluate_condition(when: str, symbols: Symbols) -> bool:
    """Whether a (valid) condition holds; an undefined symbol makes it false."""
    m = _COND.fullmatch(when)
    if m is None or m.group(1) not in symbols:
        return False
    have = symbols[m.group(1)]
    op = m.group(2)
    if op is None:
        return True
    _, want = _literal(m.group(3))
    if isinstance(want, (bool, str)):
        same = type(have) is type(want) and have == want
        return same if op == "==" else not same
    if isinstance(have, bool) or not isinstance(have, int):
        return False
    results: dict[str, bool] = {
        "==": have == want, "!=": have != want, "<": have < want,
        "<=": have <= want, ">": have > want, ">=": have >= want,
    }
    return results[op]


class _Resolver:
    def __init__(self, symbols: Symbols, source: Source, report: Any) -> None:
        self.symbols = symbols
        self.source = source
        self.report = report
        self.memo: dict[int, Any] = {}

    def value(self, data: Any, path: str) -> Any:
        if not isinstance(data, (dict, list)):
            return data
        key = id(data)
        if key in self.memo:  # an alias seen before: resolve it once (no exponential walks)
            return self.memo[key]
        out = self.mapping(data, path) if isinstance(data, dict) else self.sequence(data, path)
        self.memo[key] = out
        return out

    def mapping(self, data: dict[Any, Any], path: str) -> Any:
        changed = False
        out: dict[Any, Any] = {}
        for key, child in data.items():
            if key == "rules":
                continue
            new = self.value(child, f"{path}.{key}" if path else str(key))
            changed = changed or new is not child
            out[key] = new
        if "rules" not in data:
            if not changed:
                return data
            self.source.adopt(out, data)
            self.source.adopt_keys(out, {k: (data, k) for k in out})
            return out
        rules_path = f"{path}.rules" if path else "rules"
        config, origins = self.select(data, "rules", rules_path)
        if config is not None and not isinstance(config, dict):
            self.report.error(data, "rules", rules_path,
                              "these rules produce a list, but they sit in a mapping",
                              "a list config can only stand for a list item ('- rules: ...'); "
                              "inside a mapping, 'config' must be a mapping of keys")
            config = None
        merged_origins = {k: (data, k) for k in out}
        if config:
            out.update(config)
            merged_origins.update(origins)
        self.source.adopt(out, data)
        self.source.adopt_keys(out, merged_origins)
        return out

    def sequence(self, data: list[Any], path: str) -> list[Any]:
        changed = False
        out: list[Any] = []
        origins: list[tuple[Any, Any]] = []
        for i, item in enumerate(data):
            item_path = f"{path}[{i}]"
            if isinstance(item, dict) and "rules" in item and len(item) == 1:
                changed = True
                config, cfg_origins = self.select(item, "rules", f"{item_path}.rules")
                if isinstance(config, list):
                    out.extend(config)
                    origins.extend(cfg_origins)
                elif config is not None:
                    out.append(config)
                    origins.append((item, "rules"))
                continue
            new = self.value(item, item_path)
            changed = changed or new is not item
            out.append(new)
            origins.append((data, i))
        if not changed:
            return data
        self.source.adopt(out, data)
        self.source.adopt_items(out, origins)
        return out

    def select(self, holder: dict[Any, Any], key: str, path: str) -> tuple[Any, Any]:
        """Evaluate ``holder[key]`` (a rules list): the merged config and its origins."""
        rules = holder[key]
        report = self.report
        if not isinstance(rules, list):
            report.error(holder, key, path, "'rules' must be a list of rules",
                         "write '- when: \"$symbol\"' items, each with a 'config'")
            return None, None
        matched: list[tuple[Any, dict[Any, Any] | list[Any], int]] = []
        default: tuple[Any, dict[Any, Any] | list[Any], int] | None = None
        for i, rule in enumerate(rules):
            rpath = f"{path}[{i}]"
            if not isinstance(rule, dict):
                report.error(rules, i, rpath, "a rule must be a mapping with 'when' (or 'default') "
                             "and 'config'", "write '- when: \"$symbol\"\\n  config: {...}'")
                continue
            for extra in rule:
                if extra not in ("when", "config", "default"):
                    report.warn(rule, extra, f"{rpath}.{extra}", f"unknown rule key {extra!r}",
                                "a rule has only 'when' or 'default', and 'config'", on_key=True)
            config = rule.get("config")
            if config is not None and not isinstance(config, (dict, list)):
                report.error(rule, "config", f"{rpath}.config",
                             "'config' must be a mapping (or a list, to splice list items)",
                             "indent the keys the rule should set under 'config:'")
                continue
            if "when" in rule and "default" in rule:
                report.error(rule, "default", f"{rpath}.default",
                             "a rule has either 'when' or 'default', not both",
                             "split it into two rules")
                continue
            if "when" in rule:
                when = rule["when"]
                problem = (check_condition(when) if isinstance(when, str)
                           else "'when' must be a string such as '$symbol >= 3'")
                if problem is not None:
                    report.error(rule, "when", f"{rpath}.when", f"invalid condition: {problem}",
                                 "examples: '$fast', '$retries >= 3', '$env == \"prod\"'")
                    continue
                if evaluate_condition(when, self.symbols):
                    matched.append((rule, config if config is not None else {}, i))
            elif rule.get("default") is True:
                default = (rule, config if config is not None else {}, i)
            elif "default" in rule:
                report.warn(rule, "default", f"{rpath}.default", "'default' other than true is ignored",
                            "write 'default: true' or remove the rule")
            else:
                report.error(rules, i, rpath, "a rule needs 'when' or 'default: true'",
                             "add 'when: \"$symbol\"' or 'default: true'")
        chosen = matched or ([default] if default else [])
        if not chosen:
            return None, None
        if all(isinstance(c[1], list) for c in chosen):
            items: list[Any] = []
            item_origins: list[tuple[Any, Any]] = []
            for _rule, cfg, i in chosen:
                resolved = self.value(cfg, f"{path}[{i}].config")  # once per shared config
                for j, item in enumerate(resolved):
                    items.append(item)
                    item_origins.append((resolved, j))
            return items, item_origins
        if all(isinstance(c[1], dict) for c in chosen):
            merged: dict[Any, Any] = {}
            key_origins: dict[Any, tuple[Any, Any]] = {}
            for _rule, cfg, i in chosen:
                resolved_map = self.value(cfg, f"{path}[{i}].config")
                if not isinstance(resolved_map, dict):
                    continue
                for k, v in resolved_map.items():
                    merged[k] = v
                    key_origins[k] = (resolved_map, k)
            return merged, key_origins
        rule, _, i = chosen[-1]
        report.error(rule, "config", f"{path}[{i}].config",
                     "matching rules mix list and mapping configs", "make them all lists or all mappings")
        return None, None


def resolve_rules(data: Any, symbols: Symbols, source: Source, report: Any) -> Any:
    """``data`` with every ``rules`` block replaced by its merged config (recursively)."""
    return _Resolver(symbols, source, report).value(data, "")
