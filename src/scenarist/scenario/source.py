"""YAML text → plain Python data, keeping node marks so problems can name file:line:col.

Speed matters (a runner may load thousands of scenarios), so this reads libyaml's parse
events (when present) and turns nodes into values in one tight pass: no per-scalar regex
resolver (scalars are typed here with a first-character dispatch), no PyYAML constructor.
Marks are not copied; each built list/dict is remembered by ``id`` together with its
node, and a location is looked up only when a problem is reported. Scalars follow the
YAML 1.2 core schema (``yes``/``no`` stay strings; dates stay strings) so that data reads
the same as in the reference (serde) implementation.

Nodes are composed here, from the events, in a loop rather than by libyaml's composer:
that one recurses in C and kills the process on a few tens of thousands of nested
levels. The loop refuses nesting past :data:`MAX_DEPTH` and aliases that would expand
the document by more than :data:`MAX_ALIAS_NODES` nodes (or that point into the
collection holding them) before anything downstream walks the data, at the cost of one
dict update per node (docs/limits.md).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

import scenarist.scenario.yaml_prime  # noqa: F401 - before PyYAML: makes its import cheaper

# isort: split
import yaml
from yaml.composer import ComposerError
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, SequenceNode

from scenarist.errors import ScenaristError
from scenarist.scenario.errors import Issue

__all__ = ["MAX_ALIAS_NODES", "MAX_DEPTH", "MISSING", "Source", "parse_yaml"]

#: Deepest nesting of lists and mappings a scenario may use (the root mapping is level 1).
MAX_DEPTH = 100
_TOO_DEEP = f"the document nests lists and mappings more than {MAX_DEPTH} levels deep"
#: Most nodes that aliases may add to a document: each ``*name`` counts every scalar,
#: list and mapping (keys included) of what ``&name`` marks, aliases inside it expanded.
MAX_ALIAS_NODES = 100_000

MISSING: Any = object()  # "no key": a location of the container itself

#: A composed node: a list or mapping is a PyYAML node; a scalar is the parser's own
#: ScalarEvent, its tag resolved in place (a ScalarNode per scalar cost as much as parsing).
#: Typed ``Any``: PyYAML's stubs make every event field optional, which ours never are.
YamlNode = Any
ScalarNode = ScalarEvent

_PLAIN = "?plain"
_QUOTED = "tag:yaml.org,2002:str"
_T = "tag:yaml.org,2002:"

_SPECIAL: dict[str, Any] = {
    "": None, "~": None, "null": None, "Null": None, "NULL": None,
    "true": True, "True": True, "TRUE": True,
    "false": False, "False": False, "FALSE": False,
    ".inf": float("inf"), ".Inf": float("inf"), ".INF": float("inf"),
    "+.inf": float("inf"), "+.Inf": float("inf"), "+.INF": float("inf"),
    "-.inf": float("-inf"), "-.Inf": float("-inf"), "-.INF": float("-inf"),
    ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
}
_NUMSTART = frozenset("0123456789+-.")
_INT = re.compile(r"[-+]?[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+").fullmatch
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?").fullmatch


def _plain(s: str) -> Any:
    """Type a plain (unquoted) scalar: null, bool, int, float, else the string."""
    if s in _SPECIAL:
        return _SPECIAL[s]
    if s[0] in _NUMSTART:
        if _INT(s):
            return int(s, 0) if s[1:2] in ("x", "o") else int(s)
        if _FLOAT(s):
            return float(s)
    return s


def _parser_class(use_libyaml: bool = True) -> Callable[[str], Any]:
    """A YAML event parser: libyaml's when present, else PyYAML's pure one."""
    try:
        if not use_libyaml:
            raise ImportError("pure Python parser requested")
        from yaml._yaml import CParser  # libyaml: the fast path
    except ImportError:
        from yaml.parser import Parser
        from yaml.reader import Reader
        from yaml.scanner import Scanner

        def init(self: Any, text: str) -> None:
            Reader.__init__(self, text)
            Scanner.__init__(self)
            Parser.__init__(self)

        return type("PyEventParser", (Reader, Scanner, Parser), {"__init__": init})
    return CParser  # type: ignore[no-any-return]


_Parser = _parser_class()


class LimitError(ScenaristError):
    """A document past one of the loader's limits (depth, alias expansion, a cycle)."""

    def __init__(self, message: str, hint: str, mark: Any) -> None:
        super().__init__(message)
        self.message, self.hint, self.mark = message, hint, mark


def _anchor_where(node: YamlNode) -> str:
    return f"line {node.start_mark.line + 1}, col {node.start_mark.column + 1}"


def _compose(parser: Any) -> YamlNode | None:
    """The single document of ``parser``'s events as a node tree, built without recursion.

    Tags are left unresolved except for the one distinction the builder needs: an untagged
    plain scalar is tagged ``_PLAIN``, any other untagged node ``_QUOTED``. Raises
    :class:`LimitError` past :data:`MAX_DEPTH` or :data:`MAX_ALIAS_NODES` and on an alias
    inside the collection it names, ``ComposerError`` where PyYAML's composer does.
    """
    get = parser.get_event
    get()  # StreamStartEvent
    if get().__class__ is StreamEndEvent:
        return None
    anchors: dict[str, YamlNode] = {}
    sizes: dict[int, int] = {}  # id(anchored collection) -> its node count, aliases expanded
    open_at: dict[int, int] = {}  # id(anchored collection still open) -> count at its start
    # open collections: (node, the parent's children, anchored or not)
    stack: list[tuple[Node, list[Any], bool]] = []
    top: list[Any] = []
    children = top  # where the next node goes (a mapping's keys and values alternate)
    count = 0  # nodes so far, every alias counted as a copy of what it names
    added = 0  # the part of ``count`` that aliases added
    while True:
        event = get()
        cls = event.__class__
        if cls is ScalarEvent:
            count += 1
            tag = event.tag
            if tag is None or tag == "!":
                event.tag = _PLAIN if event.implicit[0] else _QUOTED
            if event.anchor is not None:
                _remember(anchors, event, event)
            children.append(event)
        elif cls is MappingStartEvent or cls is SequenceStartEvent:
            if len(stack) >= MAX_DEPTH:
                raise LimitError(_TOO_DEEP, "flatten the structure", event.start_mark)
            count += 1
            tag = event.tag
            kind = MappingNode if cls is MappingStartEvent else SequenceNode
            node: Node = kind(_QUOTED if tag is None or tag == "!" else tag, [],
                              event.start_mark, None, event.flow_style)
            anchored = event.anchor is not None
            if anchored:
                _remember(anchors, event, node)
                open_at[id(node)] = count
            children.append(node)
            stack.append((node, children, anchored))
            children = node.value
        elif cls is MappingEndEvent or cls is SequenceEndEvent:
            node, children, anchored = stack.pop()
            node.end_mark = event.end_mark
            if cls is MappingEndEvent:
                pairs = iter(node.value)
                node.value = list(zip(pairs, pairs, strict=True))
            if anchored:
                sizes[id(node)] = count - open_at.pop(id(node)) + 1
        elif cls is AliasEvent:
            name = event.anchor
            target = anchors.get(name)
            if target is None:
                raise ComposerError(None, None, f"found undefined alias {name!r}",
                                    event.start_mark)
            if id(target) in open_at:
                raise LimitError(f"alias *{name} points into the collection that holds it "
                                 f"(&{name} at {_anchor_where(target)}), a cycle",
                                 f"point *{name} at a finished list or mapping", event.start_mark)
            size = sizes.get(id(target), 1)
            count += size
            added += size
            if added > MAX_ALIAS_NODES:
                raise LimitError(f"aliases expand the document by more than {MAX_ALIAS_NODES:,} "
                                 f"nodes; this *{name} adds {size:,} (&{name} at "
                                 f"{_anchor_where(target)})",
                                 "write the repeated part fewer times, or split the scenario",
                                 event.start_mark)
            children.append(target)
        elif cls is DocumentEndEvent:
            break
        else:  # pragma: no cover - a parser yields nothing else inside a document
            raise ComposerError(None, None, f"unexpected {cls.__name__}", event.start_mark)
    following = get()
    root: YamlNode = top[0]
    if following.__class__ is not StreamEndEvent:
        raise ComposerError("expected a single document in the stream", root.start_mark,
                            "but found another document", following.start_mark)
    return root


def _remember(anchors: dict[str, YamlNode], event: Any, node: YamlNode) -> None:
    name = event.anchor
    if name is None:
        return
    if name in anchors:
        raise ComposerError(f"found duplicate anchor {name!r}; first occurrence",
                            anchors[name].start_mark, "second occurrence", event.start_mark)
    anchors[name] = node


class _Synth:
    """Where the parts of a container built by rule resolution came from."""

    __slots__ = ("items", "keys", "start_mark")

    def __init__(self, start_mark: Any) -> None:
        self.start_mark = start_mark
        self.keys: dict[Any, tuple[YamlNode, YamlNode]] = {}
        self.items: list[YamlNode] = []


class Source:
    """One file's raw data plus the means to point at any part of it."""

    __slots__ = ("_keys", "_locs", "file", "has_rules", "issues", "root")

    def __init__(self, file: str) -> None:
        self.file = file
        self.root: Any = None
        self.has_rules = False  # any mapping with a 'rules' key (else rule resolution is skipped)
        self.issues: list[Issue] = []
        self._locs: dict[int, YamlNode | _Synth] = {}
        self._keys: dict[int, dict[Any, tuple[YamlNode, YamlNode]]] = {}  # by id(MappingNode), on demand

    # -- locations -----------------------------------------------------------------
    def where(self, container: Any, key: Any = MISSING, *, on_key: bool = False) -> tuple[int, int]:
        """1-based (line, col) of ``container[key]`` (or of the container itself)."""
        node = self._locs.get(id(container))
        if node is None:
            return (1, 1)
        mark = node.start_mark
        if key is not MISSING:
            found = self._child(node, key)
            if found is not None:
                mark = (found[0] if on_key else found[1]).start_mark
        return (mark.line + 1, mark.column + 1)

    def _child(self, node: YamlNode | _Synth, key: Any) -> tuple[YamlNode, YamlNode] | None:
        if isinstance(node, _Synth):
            if node.items and isinstance(key, int) and 0 <= key < len(node.items):
                return (node.items[key], node.items[key])
            return node.keys.get(key)
        if isinstance(node, MappingNode):
            keys = self._keys.get(id(node))
            if keys is None:  # indexed once, so reporting on every key of a mapping stays linear
                keys = self._keys[id(node)] = _key_index(node)
            return keys.get(key)
        if isinstance(node, SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
            child = node.value[key]
            return (child, child)
        return None

    def adopt(self, new: Any, old: Any) -> None:
        """Let ``new`` (built from ``old`` by rules) report ``old``'s location."""
        node = self._locs.get(id(old))
        if node is not None:
            self._locs[id(new)] = _Synth(node.start_mark)

    def adopt_items(self, new: list[Any], origins: list[tuple[Any, Any]]) -> None:
        """``new[i]`` came from ``origins[i] = (container, key)``."""
        synth = self._synth(new)
        for container, key in origins:
            node = self._locs.get(id(container))
            found = self._child(node, key) if node is not None else None
            synth.items.append(found[1] if found else _DUMMY)

    def adopt_keys(self, new: dict[Any, Any], origins: dict[Any, tuple[Any, Any]]) -> None:
        """``new[k]`` came from ``origins[k] = (container, key)``."""
        synth = self._synth(new)
        for k, (container, key) in origins.items():
            node = self._locs.get(id(container))
            found = self._child(node, key) if node is not None else None
            if found:
                synth.keys[k] = found

    def _synth(self, new: Any) -> _Synth:
        current = self._locs.get(id(new))
        if isinstance(current, _Synth):
            return current
        synth = _Synth(current.start_mark if current is not None else _DUMMY.start_mark)
        self._locs[id(new)] = synth
        return synth

    def issue(self, message: str, hint: str = "", line: int = 1, col: int = 1) -> None:
        self.issues.append(Issue(self.file, line, col, "", message, hint))

    # -- building ------------------------------------------------------------------
    def build(self, node: YamlNode) -> Any:
        """Turn a composed node tree into dicts, lists and scalars (remembering nodes)."""
        memo: dict[int, Any] = {}
        locs = self._locs
        issue = self._node_issue

        def scalar(n: YamlNode) -> Any:
            if isinstance(n, ScalarNode):
                tag = n.tag
                if tag is _QUOTED:
                    return n.value
                if tag is _PLAIN:
                    return _plain(n.value)
                return self._tagged(n)
            return build(n)

        def build(n: YamlNode) -> Any:
            key_id = id(n)
            if key_id in memo:  # an alias: share the value
                return memo[key_id]
            if isinstance(n, ScalarNode):
                return scalar(n)
            if isinstance(n, SequenceNode):
                if n.tag not in (_QUOTED, _T + "seq"):
                    issue(n, f"unsupported YAML tag {n.tag!r} on a list", "remove the tag")
                seq: list[Any] = []
                memo[key_id] = seq
                locs[id(seq)] = n
                append = seq.append
                for child in n.value:
                    if isinstance(child, ScalarNode):
                        tag = child.tag
                        if tag is _QUOTED:
                            append(child.value)
                        elif tag is _PLAIN:
                            append(_plain(child.value))
                        else:
                            append(self._tagged(child))
                    else:
                        append(build(child))
                return seq
            if isinstance(n, MappingNode):
                if n.tag not in (_QUOTED, _T + "map"):
                    issue(n, f"unsupported YAML tag {n.tag!r} on a mapping", "remove the tag")
                mapping: dict[Any, Any] = {}
                memo[key_id] = mapping
                locs[id(mapping)] = n
                merges: list[Any] = []
                for k, v in n.value:
                    if isinstance(k, ScalarNode):
                        if k.tag is _QUOTED:
                            key = k.value
                        elif k.tag is _PLAIN:
                            key = _plain(k.value)
                            if key == "<<":
                                merges.append((k, build(v)))
                                continue
                        else:
                            key = self._tagged(k)
                    else:
                        issue(k, "a mapping key must be a plain value, not a list or mapping",
                              "write the key as a string")
                        continue
                    if isinstance(key, float) and key != key:
                        key = "nan"
                    if key in mapping:
                        issue(k, f"duplicate key {key!r}; the last one is used",
                              "remove one of the two", severity="warning")
                    if isinstance(v, ScalarNode):
                        tag = v.tag
                        if tag is _QUOTED:
                            mapping[key] = v.value
                        elif tag is _PLAIN:
                            mapping[key] = _plain(v.value)
                        else:
                            mapping[key] = self._tagged(v)
                    else:
                        mapping[key] = build(v)
                for k, merged in merges:
                    sources = merged if isinstance(merged, list) else [merged]
                    for src in sources:
                        if not isinstance(src, dict):
                            issue(k, "'<<' must merge a mapping or a list of mappings",
                                  "point '<<' at an anchored mapping, e.g. '<<: *defaults'")
                            continue
                        for mk, mv in src.items():
                            mapping.setdefault(mk, mv)
                if "rules" in mapping:
                    self.has_rules = True
                return mapping
            issue(n, "unsupported YAML node", "")  # pragma: no cover - composer makes only 3 kinds
            return None

        return build(node)

    def _node_issue(self, node: YamlNode, message: str, hint: str, severity: str = "error") -> None:
        mark = node.start_mark
        self.issues.append(Issue(self.file, mark.line + 1, mark.column + 1, "", message, hint,
                                 "warning" if severity == "warning" else "error"))

    def _tagged(self, n: YamlNode) -> Any:
        tag, value = n.tag, n.value
        if tag == _T + "str":
            return value
        if tag == _T + "null":
            return None
        if tag == _T + "bool" and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if tag == _T + "int":
            typed = _plain(value) if value else None
            if isinstance(typed, int) and not isinstance(typed, bool):
                return typed
        if tag == _T + "float":
            typed = _plain(value) if value else None
            if isinstance(typed, (int, float)) and not isinstance(typed, bool):
                return float(typed)
        if tag == _T + "binary":
            try:
                return base64.b64decode("".join(value.split()), validate=True)
            except (binascii.Error, ValueError):
                pass
        if tag.startswith(_T) and tag[len(_T):] in ("bool", "int", "float", "binary"):
            self._node_issue(n, f"{value!r} is not a valid !!{tag[len(_T):]}",
                             "fix the value or drop the tag")
            return value
        self._node_issue(n, f"unsupported YAML tag {tag!r}",
                         "scenarios use plain YAML values; remove the tag")
        return value


def _key_index(node: MappingNode) -> dict[Any, tuple[YamlNode, YamlNode]]:
    """A mapping node's (key, value) nodes by the key as :meth:`Source.build` types it."""
    index: dict[Any, tuple[YamlNode, YamlNode]] = {}
    for k, v in node.value:  # a later duplicate replaces an earlier one, as in the data
        if k.__class__ is ScalarNode:
            key = _plain(k.value) if k.tag is _PLAIN else k.value
            index["nan" if key.__class__ is float and key != key else key] = (k, v)
    return index


class _DummyMark:
    line = 0
    column = 0


class _DummyNode:
    start_mark = _DummyMark()


_DUMMY: Any = _DummyNode()


def parse_yaml(text: str, file: str, *, parser_class: Callable[[str], Any] | None = None) -> Source:
    """Parse one YAML document into a :class:`Source`; problems go to ``source.issues``."""
    source = Source(file)
    try:
        parser = (parser_class or _Parser)(text)
        try:
            node = _compose(parser)
        finally:
            dispose = getattr(parser, "dispose", None)
            if dispose is not None:
                dispose()
    except LimitError as exc:
        source.issue(exc.message, exc.hint, exc.mark.line + 1, exc.mark.column + 1)
        return source
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = exc.problem or "invalid YAML"
        if "nesting depth" in problem:
            # PyYAML >= 6.0.4 refuses deep flow nesting while scanning ahead, before our own
            # composer reaches MAX_DEPTH: the same refusal, told the same way.
            source.issue(_TOO_DEEP, "flatten the structure", line, col)
            return source
        context = f" {exc.context}" if exc.context else ""
        hint = ("a scenario file holds one YAML document; remove the extra '---'"
                if "single document" in str(exc) else
                "check indentation, quoting and ':' placement around this point")
        source.issue(f"YAML syntax error: {problem}{context}", hint, line, col)
        return source
    except yaml.YAMLError as exc:  # e.g. ReaderError: a control character in the text
        source.issue(f"YAML error: {exc}".replace("\n", " "),
                     "remove control characters; files must be UTF-8 text")
        return source
    if node is None:
        source.issue("the file is empty", "a scenario needs at least 'name:' and 'timeline:'")
        return source
    source.root = source.build(node)
    return source
