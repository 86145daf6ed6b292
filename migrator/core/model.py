"""Value types shared by the engine, the rules and the reports."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal


def _where(path: str, cell: int | None) -> str:
    return path if cell is None else f"{path}:cell {cell}"


class Safety(enum.Enum):
    """How far a rule's edits can be trusted without a human look."""

    SAFE = "safe"
    REVIEW = "needs review"


class FixAvailability(enum.Enum):
    """Whether a rule's findings come with an edit (ruff's fix availability)."""

    ALWAYS = "always"
    SOMETIMES = "sometimes"
    NEVER = "never"


ActionName = Literal[
    "replace-library",
    "change-dtype",
    "port-code",
    "dependencies",
    "decide-version",
    "host-setup",
    "generated-file",
    "review",
    "suggestion",
]


class Action(enum.Enum):
    """What a person must do about a finding: the reports group warnings by it, in this
    order, so that a reviewer can plan the work. Each rule declares one (`Rule.action`, by value);
    edits that need review are "review" whatever their rule."""

    REPLACE_LIBRARY = "replace-library"
    CHANGE_DTYPE = "change-dtype"
    PORT_CODE = "port-code"
    DEPENDENCIES = "dependencies"
    DECIDE_VERSION = "decide-version"
    HOST_SETUP = "host-setup"
    GENERATED_FILE = "generated-file"
    REVIEW = "review"
    SUGGESTION = "suggestion"

    @property
    def title(self) -> str:
        """The heading of the action's group in the reports."""
        return _ACTION_TITLES[self]


_ACTION_TITLES = {
    Action.REPLACE_LIBRARY: "Replace a CUDA-only library or kernel",
    Action.CHANGE_DTYPE: "Change a dtype the NPU lacks",
    Action.PORT_CODE: "Change code by hand",
    Action.DEPENDENCIES: "Change the dependencies (install, build or drop a package)",
    Action.DECIDE_VERSION: "Decide a version (an API the target release lacks)",
    Action.HOST_SETUP: "Set up the host, the launch scripts and configs",
    Action.GENERATED_FILE: "Merge a generated file by hand",
    Action.REVIEW: "Review a rewrite, or code the tool left alone",
    Action.SUGGESTION: "Optional NPU tuning (suggestions)",
}


class Kind(enum.Enum):
    """What a finding is: an edit made, a problem left to the user, or a site skipped."""

    EDIT = "edit"
    WARNING = "warning"
    # A site skipped because of a `# migrate: ignore` comment (or such a comment unused).
    SUPPRESSED = "suppressed"


@dataclass(frozen=True)
class Location:
    """Where a finding is: 1-based line and column, the last line of the construct (for
    suppressions on a continued command), and for notebooks the 1-based cell, counting
    every cell (`line` is then the cell's line). `col` 0: the finding names a line."""

    path: str
    line: int
    col: int = 0
    # Not compared: two reports of one site are one site, however far each reaches.
    end_line: int = field(default=0, compare=False)
    cell: int | None = None

    @property
    def last_line(self) -> int:
        return max(self.line, self.end_line)


@dataclass(frozen=True, order=True)
class TextEdit:
    """Replace text[start:end] (offsets into the text the rule read) with `new_text`."""

    start: int
    end: int
    new_text: str


@dataclass(frozen=True)
class Fix:
    """The edits one finding makes, applied together or not at all."""

    edits: tuple[TextEdit, ...]
    applicability: Safety = Safety.SAFE


@dataclass(frozen=True)
class Finding:
    """One thing a rule found: an edit (with its `fix` when it is a text edit), a warning
    with what to do about it, or a suppressed site. The one type the reports read."""

    code: str
    message: str
    location: Location
    kind: Kind = Kind.EDIT
    review: bool = False
    suggestion: str = ""
    fix: Fix | None = None

    @classmethod
    def change(
        cls, path: str, line: int, col: int, code: str, message: str, review: bool = False,
        *, end_line: int = 0, fix: Fix | None = None,
    ) -> Finding:  # fmt: skip
        return cls(code, message, Location(path, line, col, end_line), Kind.EDIT, review, fix=fix)

    @classmethod
    def warning(
        cls, path: str, line: int, col: int, code: str, message: str, suggestion: str = "",
        *, end_line: int = 0,
    ) -> Finding:  # fmt: skip
        return cls(
            code, message, Location(path, line, col, end_line), Kind.WARNING, suggestion=suggestion
        )

    @classmethod
    def suppression(cls, path: str, line: int, code: str) -> Finding:
        return cls(code, "", Location(path, line), Kind.SUPPRESSED)

    @property
    def path(self) -> str:
        return self.location.path

    @property
    def line(self) -> int:
        return self.location.line

    @property
    def col(self) -> int:
        return self.location.col

    @property
    def cell(self) -> int | None:
        return self.location.cell

    def in_cell(self, cell: int) -> Finding:
        return replace(self, location=replace(self.location, cell=cell))

    def sort_key(self) -> tuple[str, int, int, str, str, bool, str, int]:
        return (
            self.path, self.line, self.col, self.code, self.message, self.review,
            self.suggestion, self.cell or 0,
        )  # fmt: skip

    def as_dict(self) -> dict[str, object]:
        """The report's JSON object for this finding (its fields depend on the kind)."""
        found: dict[str, object] = {"path": self.path, "line": self.line}
        if self.kind is not Kind.SUPPRESSED:
            found["col"] = self.col
        found["code"] = self.code
        if self.kind is Kind.EDIT:
            found.update(message=self.message, review=self.review)
        elif self.kind is Kind.WARNING:
            found.update(message=self.message, suggestion=self.suggestion)
        found["cell"] = self.cell
        return found

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], kind: Kind) -> Finding:
        """The finding `as_dict` wrote (a report read back)."""
        where = Location(data["path"], data["line"], data.get("col", 0), cell=data["cell"])
        return cls(
            data["code"], data.get("message", ""), where, kind, data.get("review", False),
            data.get("suggestion", ""),
        )  # fmt: skip

    def format(self) -> str:
        where = _where(self.path, self.cell)
        if self.kind is Kind.SUPPRESSED:
            return f"{where}:{self.line}: {self.code} suppressed"
        if self.kind is Kind.WARNING:
            tail = f" ({self.suggestion})" if self.suggestion else ""
            return f"{where}:{self.line}:{self.col}: {self.code} warning: {self.message}{tail}"
        mark = " [needs review]" if self.review else ""
        return f"{where}:{self.line}:{self.col}: {self.code}{mark} {self.message}"


def settled(
    findings: Iterable[Finding],
    key: Callable[[Finding], tuple[str | int | bool, ...]] = Finding.sort_key,
) -> tuple[Finding, ...]:
    """A file's findings as the reports list them: sorted, a site suppressed twice once
    (equal edits and warnings are each reported)."""
    seen: set[Finding] = set()
    kept: list[Finding] = []
    for finding in findings:
        if finding.kind is Kind.SUPPRESSED:
            if finding in seen:
                continue
            seen.add(finding)
        kept.append(finding)
    return tuple(sorted(kept, key=key))


@dataclass
class Outcome:
    """What the rules made of one text: a file's, or a notebook cell's."""

    text: str
    findings: Sequence[Finding] = ()
    unused_suppressions: Sequence[Finding] = ()
    todos_added: int = 0
    todos_removed: int = 0

    @property
    def changes(self) -> list[Finding]:
        return [finding for finding in self.findings if finding.kind is Kind.EDIT]

    @property
    def warnings(self) -> list[Finding]:
        return [finding for finding in self.findings if finding.kind is Kind.WARNING]


class Status(enum.Enum):
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    CREATED = "created"
    FAILED = "failed"


# A note that starts so is shown by default (not only with --verbose): something the rules
# could not read that a user must handle by hand (a `%%time` notebook cell naming CUDA).
WARNING_NOTE = "warning: "


@dataclass(frozen=True)
class FileResult:
    """What migrating one file produced. `new_data` is set only when the file changes."""

    path: str
    status: Status
    old_data: bytes | None = None
    new_data: bytes | None = None
    # Every finding, as `settled` orders them; `changes`/`warnings`/`suppressed` read them.
    findings: tuple[Finding, ...] = ()
    # `# migrate: ignore` comments nothing needed (kind SUPPRESSED, the comment's codes).
    unused_suppressions: tuple[Finding, ...] = ()
    error: str | None = None
    # What a reader should know that is no edit or warning (a notebook cell left alone...).
    notes: tuple[str, ...] = ()
    todos_added: int = 0
    todos_removed: int = 0
    # Skipped: unchanged since a run that found nothing to do in it (see migrator.engine.cache).
    from_cache: bool = False
    # sha256 of the bytes the rules read, for the cache.
    digest: str | None = None
    # (size, mtime in ns) of the file when it was read: a write checks it still holds.
    stamp: tuple[int, int] | None = None
    # FAILED by a bug in the tool (an exception the engine did not expect), not by the input.
    internal: bool = False

    @property
    def changes(self) -> tuple[Finding, ...]:
        return self._of(Kind.EDIT)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return self._of(Kind.WARNING)

    @property
    def suppressed(self) -> tuple[Finding, ...]:
        return self._of(Kind.SUPPRESSED)

    def _of(self, kind: Kind) -> tuple[Finding, ...]:
        return tuple(finding for finding in self.findings if finding.kind is kind)


@dataclass(frozen=True)
class SkippedPath:
    """A path the walk left out, and why (shown in reports)."""

    path: str
    reason: str


@dataclass
class RunSummary:
    """Totals of a run; mutable because the engine streams results into it."""

    scanned: int = 0
    changed: int = 0
    created: int = 0
    edits: int = 0
    review: int = 0
    warnings: int = 0
    suppressed: int = 0
    failed: int = 0
    from_cache: int = 0
    todos_added: int = 0
    todos_removed: int = 0
    # Paths the walk left out (each listed with --verbose and in the report).
    skipped: int = 0
    results: list[FileResult] = field(default_factory=list)

    def add(self, result: FileResult) -> None:
        self.scanned += 1
        if result.status is Status.CHANGED:
            self.changed += 1
        elif result.status is Status.CREATED:
            self.created += 1
        elif result.status is Status.FAILED:
            self.failed += 1
        self.edits += len(result.changes)
        self.review += sum(1 for change in result.changes if change.review)
        self.warnings += len(result.warnings)
        self.suppressed += len(result.suppressed)
        self.from_cache += result.from_cache
        self.todos_added += result.todos_added
        self.todos_removed += result.todos_removed

    def line(self, pending: bool = False) -> str:
        """The run's summary; `pending`: nothing was written (--check, --dry-run, a refusal),
        so files "would change" rather than "changed"."""
        created = f", {_n(self.created, 'file')} created" if self.created else ""
        if pending and self.created:
            created = f", {_n(self.created, 'file')} would be created"
        skipped = f", {_n(self.skipped, 'path')} skipped" if self.skipped else ""
        todos = ""
        if self.todos_added or self.todos_removed:
            todos = f", TODO comments: {self.todos_added} added, {self.todos_removed} removed"
        return (
            f"{_n(self.scanned, 'file')} scanned, {_n(self.changed, 'file')} "
            f"{'would change' if pending else 'changed'}{created}, "
            f"{_n(self.edits, 'edit')} ({self.review} need review), "
            f"{_n(self.warnings, 'warning')}, {self.suppressed} suppressed, "
            f"{_n(self.failed, 'file')} failed{todos}{skipped}"
        )


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
