"""Value types shared by the engine, the rules and the reports."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


def _where(path: str, cell: int | None) -> str:
    return path if cell is None else f"{path}:cell {cell}"


class Safety(enum.Enum):
    """How far a rule's edits can be trusted without a human look."""

    SAFE = "safe"
    REVIEW = "needs review"


@dataclass(frozen=True, order=True)
class Change:
    """One edit a rule made: where, which rule, and what a reviewer should know."""

    path: str
    line: int
    col: int
    code: str
    message: str
    review: bool = False
    # Notebooks: the 1-based cell (counting every cell); `line` is then the cell's line.
    cell: int | None = None

    def format(self) -> str:
        mark = " [needs review]" if self.review else ""
        where = _where(self.path, self.cell)
        return f"{where}:{self.line}:{self.col}: {self.code}{mark} {self.message}"


@dataclass(frozen=True, order=True)
class MigrationWarning:
    """Something a rule found but cannot fix mechanically, with what to do about it."""

    path: str
    line: int
    col: int
    code: str
    message: str
    suggestion: str = ""
    cell: int | None = None

    def format(self) -> str:
        tail = f" ({self.suggestion})" if self.suggestion else ""
        where = _where(self.path, self.cell)
        return f"{where}:{self.line}:{self.col}: {self.code} warning: {self.message}{tail}"


@dataclass(frozen=True, order=True)
class Suppression:
    """A site a rule would have acted on, skipped because of a `# migrate: ignore` comment."""

    path: str
    line: int
    code: str
    cell: int | None = None

    def format(self) -> str:
        return f"{_where(self.path, self.cell)}:{self.line}: {self.code} suppressed"


class Status(enum.Enum):
    UNCHANGED = "unchanged"
    CHANGED = "changed"
    CREATED = "created"
    FAILED = "failed"


@dataclass(frozen=True)
class FileResult:
    """What migrating one file produced. `new_data` is set only when the file changes."""

    path: str
    status: Status
    old_data: bytes | None = None
    new_data: bytes | None = None
    changes: tuple[Change, ...] = ()
    warnings: tuple[MigrationWarning, ...] = ()
    suppressed: tuple[Suppression, ...] = ()
    unused_suppressions: tuple[Suppression, ...] = ()
    error: str | None = None
    # What a reader should know that is no edit or warning (a notebook cell left alone...).
    notes: tuple[str, ...] = ()
    todos_added: int = 0
    todos_removed: int = 0
    # Skipped: unchanged since a run that found nothing to do in it (see migrator.engine.cache).
    from_cache: bool = False
    # sha256 of the bytes the rules read, for the cache.
    digest: str | None = None


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

    def line(self) -> str:
        created = f", {_n(self.created, 'file')} created" if self.created else ""
        todos = ""
        if self.todos_added or self.todos_removed:
            todos = f", TODO comments: {self.todos_added} added, {self.todos_removed} removed"
        return (
            f"{_n(self.scanned, 'file')} scanned, {_n(self.changed, 'file')} changed{created}, "
            f"{_n(self.edits, 'edit')} ({self.review} need review), "
            f"{_n(self.warnings, 'warning')}, {self.suppressed} suppressed, "
            f"{_n(self.failed, 'file')} failed{todos}"
        )


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
