"""The verdicts of the loader and of the JSON Schema on one scenario, and whether they agree.

The loader gives one of three verdicts: *clean* (loads, no warning), *warned* (loads, with
warnings: unknown keys and the like, which ``--strict`` turns into errors) or *rejected*.
The schema agrees when it accepts every clean scenario and rejects every rejected one,
except for a rejection whose every error is a check no JSON Schema can make (files on disk,
capabilities declared elsewhere in the file, times across items, references between items;
docs/scenario-format.md "Checks at load time"). A warned scenario may go either way: an
editor may flag what the loader only warns about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import jsonschema

from scenarist.scenario import ScenarioError, load_scenario_text
from scenarist.scenario.schema import scenario_schema

#: errors of checks beyond a schema's reach (docs/scenario-format.md "Checks at load time")
BEYOND_SCHEMA = re.compile("|".join([
    r"file .* (not found|is outside)", r"not a folder", r"is outside the scenario's folder",
    r"does not look like", r"not valid base64",
    r"acp\.capabilities", r"loadSession", r"sessionStart",
    r"is not one of the options", r"needs a matching option", r"no option",
    r"earlier than", r"comes after one at", r"moves the timeline", r"timeMs", r"relativeTime",
    r"is still scheduled", r"at most one fault", r"invalid condition",
    r"does not compile", r"matches the empty text", r"names group", r"JSON pointer",
    r"not a terminal profile", r"unknown key name", r"baseTimeDelta", r"not found",
    r"which is unstable",
]))

Verdict = Literal["clean", "warned", "rejected"]


@dataclass(frozen=True, slots=True)
class Verdicts:
    loader: Verdict
    errors: tuple[str, ...]  # the loader's errors (messages with their key paths)
    schema: tuple[str, ...]  # the schema's complaints (empty: valid)

    @property
    def beyond_schema(self) -> bool:
        """Every loader error is one no schema can make."""
        return bool(self.errors) and all(BEYOND_SCHEMA.search(e) for e in self.errors)

    @property
    def agree(self) -> bool:
        if self.loader == "clean":
            return not self.schema
        if self.loader == "rejected":
            return bool(self.schema) or self.beyond_schema
        return True


_VALIDATOR = jsonschema.Draft7Validator(scenario_schema())


def verdicts(data: Any, text: str, path: Path) -> Verdicts:
    """The loader's verdict on ``text`` (read as the file at ``path``) and the schema's on
    ``data`` (the same document, as the loader parses it)."""
    try:
        loaded = load_scenario_text(text, path=path)
    except ScenarioError as exc:
        loader: Verdict = "rejected"
        errors = tuple(f"{i.message} (at {i.path})" for i in exc.errors if i.severity == "error")
    else:
        loader = "warned" if loaded.warnings else "clean"
        errors = ()
    found = jsonschema.exceptions.best_match(_VALIDATOR.iter_errors(data))
    schema = () if found is None else (f"{list(found.absolute_path)}: {found.message[:200]}",)
    return Verdicts(loader, errors, schema)
