"""``tool_choice``: what a request lets the model do with its tools, read from the three APIs'
spellings into one value (pure).

- ``auto`` (the default everywhere): the scenario's calls, fitted to the declared tools.
- ``none`` (all three APIs): no calls; the turn's text only.
- ``required`` (OpenAI) / ``any`` (Anthropic), and ``allowed_tools`` with mode ``required``:
  the answer must call some tool; a turn without a call is refused (400) rather than
  answered with text a real model would not send.
- a named tool — Responses ``{"type": "function", "name"}``, Chat ``{"type": "function",
  "function": {"name"}}``, Anthropic ``{"type": "tool", "name"}`` (and OpenAI's ``custom``
  forms): every call goes to that tool when its schema can carry the action, renamed to it
  (instructor's streamed ``create_partial`` declares ``PartialRelease`` and forces it for a
  scenario call to ``Release``); a forced tool the request does not declare is the API's 400.

The field's shape was already checked by :mod:`scenarist.llm.request_fields`.
"""

# Annotations are not postponed here: see "Records" in docs/architecture.md.
from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

from scenarist.llm.request_errors import RequestError

Mode = Literal["auto", "none", "required"]


class ToolChoice(NamedTuple):
    """``mode``, and the one tool a forced choice names (its mode is ``required``)."""

    mode: Mode = "auto"
    name: str | None = None

    @property
    def must_call(self) -> bool:
        return self.mode == "required"

    def describe(self) -> str:
        """How an error message names the choice."""
        return f"forces the tool {self.name!r}" if self.name else f"is {self.mode!r}"


AUTO = ToolChoice()
_MODES: dict[str, Mode] = {"auto": "auto", "none": "none", "required": "required",
                           "any": "required", "tool": "required"}

#: the string spellings' choices, made once (an agent sends ``"auto"`` on every request); not
#: :data:`AUTO` itself, which stands for a request that sends none
_BY_STRING: dict[str, ToolChoice] = {key: ToolChoice(mode) for key, mode in _MODES.items()}
_NAMED_AUTO = ToolChoice("auto")


def read_tool_choice(api: str, value: Any, declared: frozenset[str]) -> ToolChoice:
    """The request's ``tool_choice`` (``None``: absent); raises :class:`RequestError` for a
    forced tool that ``declared`` (the request's tool names) lacks."""
    if value is None:
        return AUTO
    if isinstance(value, str):
        return _BY_STRING.get(value, _NAMED_AUTO)
    if not isinstance(value, Mapping):
        return AUTO
    kind = value.get("type")
    name = _forced_name(api, value)
    if name is None:
        if kind == "allowed_tools":  # a subset the model may use: its mode says whether it must
            inner = value.get("allowed_tools", value)
            mode = inner.get("mode") if isinstance(inner, Mapping) else None
            return ToolChoice(_MODES.get(str(mode), "auto"))
        return ToolChoice(_MODES.get(str(kind), "auto"))
    if name not in declared:
        shown = ", ".join(sorted(declared)) or "none"
        raise RequestError(f"tool_choice: the tool {name!r} is not among the request's tools "
                           f"(declared: {shown}); declare it in tools or choose another",
                           param="tool_choice")
    return ToolChoice("required", name)


def _forced_name(api: str, value: Mapping[str, Any]) -> str | None:
    kind = value.get("type")
    if api == "messages":
        name = value.get("name") if kind == "tool" else None
    elif kind in ("function", "custom"):
        inner = value.get(kind) if api == "chat" else value
        name = inner.get("name") if isinstance(inner, Mapping) else None
    else:
        name = None
    return name if isinstance(name, str) else None
