"""The trigger index: a rule package's rules and their `Trigger`s as data.

A run must know which files some rule may act on before it is worth importing the rules:
every rule class is a LibCST transformer, and importing them all (and LibCST) costs more
than a run over a project with nothing to migrate. So each of the tool's rule packages
ships `triggers.json`, written from the rule classes themselves by

    python -m migrator.engine.write_index

It holds, per rule, what the registry and the engine's pre-filter read: code, name,
module, class, priority, kind (Python or text) and the trigger's tokens, patterns, needs, unit,
paths, files and notebooks, and where its `always` function lives (the pre-filter calls
it; `migrator.contract.expected` and `migrator.contract.entries` hold LibCST-free ones).
Gates, statement gates and facts are only read once a rule is imported for a file.

The index also records a digest of the package's modules: a package whose modules changed
since its index was written (or one without an index, such as a third party's target
package) is read by importing its rules, which is correct, only slower.
`tests/test_startup.py` fails when a committed index is stale and names the command.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from migrator.contract.trigger import FileView, TokenPattern, Trigger, Unit

if TYPE_CHECKING:
    from migrator.contract.rule import Rule

INDEX_FILE = "triggers.json"
COMMAND = "python -m migrator.engine.write_index"
# The Trigger fields the index writes as data; the callables are written apart.
_DATA_FIELDS = ("tokens", "patterns", "needs", "words", "unit", "paths", "files", "notebooks")
_CALLABLE_FIELDS = ("gate", "statement_gate", "names", "region", "always", "facts")
# Fields the engine reads only inside a file, from the imported rule class: not indexed.
_CLASS_FIELDS = (
    "local", "reads_around", "elements", "skips_data", "quiet_definitions", "through",
    "names_called",
)  # fmt: skip


class IndexWriteError(Exception):
    """A rule's trigger cannot be written to the index (the message says why)."""


@dataclass(frozen=True)
class Always:
    """A trigger's `always`, imported from its module the first time it is called."""

    reference: str  # "module:qualname"

    def __call__(self, view: FileView) -> bool:
        return bool(resolve(self.reference)(view))


@dataclass(frozen=True)
class RuleEntry:
    """One rule as the index describes it; `load()` imports its class."""

    code: str
    name: str
    module: str
    qualname: str
    package: str
    priority: int
    text: bool
    # The trigger's data, with `always` as an `Always`; no gate, statement gate or facts.
    # (An entry made from an imported class holds that class and its own trigger.)
    trigger: Trigger
    # What a person must do about its warnings (`Rule.action`; None where it declares none).
    action: str | None = None
    rule: type[Rule] | None = field(default=None, compare=False)

    def load(self) -> type[Rule]:
        if self.rule is not None:
            return self.rule
        found: type[Rule] = resolve(f"{self.module}:{self.qualname}")
        return found


def resolve(reference: str) -> Any:
    module, _, qualname = reference.partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def digest(folder: Path) -> str:
    """The package's own modules (its top-level `.py` files), by name and content."""
    hashed = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        hashed.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hashed.hexdigest()


def _reference(function: Callable[..., object], where: str) -> str:
    module = getattr(function, "__module__", None)
    qualname = getattr(function, "__qualname__", None)
    reference = f"{module}:{qualname}"
    try:
        found = resolve(reference) if module and qualname else None
    except (ImportError, AttributeError):
        found = None
    if found is not function:
        raise IndexWriteError(
            f"{where}: its trigger's `always` must be a module-level function "
            "(the index names it by module and name)"
        )
    return reference


def entry_of(rule: type[Rule], package: str) -> dict[str, Any]:
    """One rule's index entry, as JSON data."""
    from migrator.contract.rule import TextRule

    where = f"{rule.__module__}.{rule.__qualname__}"
    trigger = rule.trigger
    known = {*_DATA_FIELDS, *_CALLABLE_FIELDS, *_CLASS_FIELDS}
    unknown = [f.name for f in dataclasses.fields(Trigger) if f.name not in known]
    if unknown:
        raise IndexWriteError(
            f"Trigger has fields the index does not know ({', '.join(unknown)}): "
            "teach migrator/engine/index.py to write them"
        )
    return {
        "code": rule.code,
        "name": rule.name,
        "module": rule.__module__,
        "class": rule.__qualname__,
        "package": package,
        "priority": rule.priority,
        "text": issubclass(rule, TextRule),
        "tokens": list(trigger.tokens),
        "patterns": [
            [pattern.literal, pattern.regex, pattern.one_line] for pattern in trigger.patterns
        ],
        "needs": [[pattern.literal, pattern.regex, pattern.one_line] for pattern in trigger.needs],
        "words": trigger.words,
        "unit": trigger.unit.value,
        "paths": list(trigger.paths),
        "files": list(trigger.files),
        "notebooks": trigger.notebooks,
        "always": None if trigger.always is None else _reference(trigger.always, where),
        "action": _action(rule),
    }


def _entry(data: dict[str, Any]) -> RuleEntry:
    always = data["always"]
    trigger = Trigger(
        tokens=tuple(data["tokens"]),
        patterns=tuple(TokenPattern(*pattern) for pattern in data["patterns"]),
        needs=tuple(TokenPattern(*pattern) for pattern in data["needs"]),
        words=bool(data["words"]),
        unit=Unit(data["unit"]),
        paths=tuple(data["paths"]),
        files=tuple(data["files"]),
        notebooks=data["notebooks"],
        always=None if always is None else Always(always),
    )
    return RuleEntry(
        data["code"], data["name"], data["module"], data["class"], data["package"],
        data["priority"], data["text"], trigger, data["action"],
    )  # fmt: skip


def from_class(rule: type[Rule], package: str) -> RuleEntry:
    """The entry of an imported rule class: its own trigger, and the class itself."""
    from migrator.contract.rule import TextRule

    return RuleEntry(
        rule.code, rule.name, rule.__module__, rule.__qualname__, package, rule.priority,
        issubclass(rule, TextRule), rule.trigger, _action(rule), rule,
    )  # fmt: skip


def _action(rule: type[Rule]) -> str | None:
    value = getattr(rule, "action", None)
    # A plain string (`ActionName`); an `Action` member is written as its value.
    return None if value is None else str(getattr(value, "value", value))


def read(package: str, folder: Path, current: str | None = None) -> list[RuleEntry] | None:
    """The package's entries from its index; None when it has none or it is stale.

    `current` is the package's `digest` when the caller has it already."""
    try:
        data = json.loads((folder / INDEX_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if current is None:
        current = digest(folder)
    if not isinstance(data, dict) or data.get("digest") != current:
        return None
    try:
        return [_entry(item) for item in data["rules"]]
    except (KeyError, TypeError, ValueError):
        # Written by another version of this module: as good as none.
        return None


def render(package: str, folder: Path, rules: Sequence[type[Rule]]) -> str:
    """The text of the package's index for these rule classes."""
    data = {
        "written_by": COMMAND,
        "digest": digest(folder),
        "rules": [entry_of(rule, package) for rule in sorted(rules, key=lambda r: r.code)],
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
