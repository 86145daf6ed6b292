"""The Python API for tool builders: what `migrate` does, without the command line.

```python
from migrator.api import migrate_source, migrate_tree

result = migrate_source('import torch\\nx = torch.randn(2).cuda()\\n')
result.text          # 'import torch\\nx = torch.randn(2).npu()\\n'
result.findings      # (Finding(code='NPU011', ...),)

tree = migrate_tree("path/to/project")            # reads only; write=True rewrites
[f.path for f in tree.files if f.changed]           # paths relative to tree.root
```

Both read no `[tool.migrate]` table (pass `select`/`ignore` instead), use no cache, print
nothing and raise `MigrationError` for what the command reports as a usage error (an
unknown code or profile). A file that cannot be parsed is a result with `error` set,
never an exception. The results are frozen dataclasses; the findings are
`migrator.core.model.Finding` values, as the reports use them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from migrator.contract.profile import Profile
from migrator.contract.rule import RuleOptions
from migrator.core.model import FileResult, Finding, Kind, RunSummary, Status
from migrator.core.target import TARGETS
from migrator.engine import registry
from migrator.engine.files import migrate_text
from migrator.engine.selection import SelectionError, renamed, split_codes
from migrator.engine.selection import select as select_items
from migrator.engine.session import (
    SessionError,
    choose_profile,
    finish,
    migrate,
    plan,
    settle,
    write_in_place,
)
from migrator.engine.settings import Settings

__all__ = [
    "FileOutcome",
    "MigrationError",
    "SourceResult",
    "TreeResult",
    "migrate_source",
    "migrate_tree",
]


class MigrationError(ValueError):
    """A request the tool cannot run: an unknown rule code, profile or target."""


@dataclass(frozen=True)
class SourceResult:
    """One source text migrated: the new text (the old one when nothing changed)."""

    text: str
    changed: bool
    findings: tuple[Finding, ...]
    # Why the text could not be migrated (it is then returned unchanged); None when it was.
    error: str | None = None

    @property
    def edits(self) -> tuple[Finding, ...]:
        return tuple(item for item in self.findings if item.kind is Kind.EDIT)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(item for item in self.findings if item.kind is Kind.WARNING)


@dataclass(frozen=True)
class FileOutcome:
    """One file of a tree: its path relative to the root, what the run did or would do."""

    path: str
    status: Status
    findings: tuple[Finding, ...]
    error: str | None
    # The new content (None when the file does not change or failed).
    new_data: bytes | None

    @property
    def changed(self) -> bool:
        return self.status in (Status.CHANGED, Status.CREATED)


@dataclass(frozen=True)
class TreeResult:
    """A tree migrated: every file a rule read (and each profile step's files), in the
    order the command prints them, and the run's totals."""

    root: Path
    profile: str
    files: tuple[FileOutcome, ...]
    summary: RunSummary
    # Whether the changes were written (`write=True`); False: the tree is as it was.
    written: bool


def _settings(
    profile_name: str, root: Path, select: Sequence[str], ignore: Sequence[str], target: str
) -> tuple[Settings, Profile]:
    if target not in TARGETS:
        raise MigrationError(f"unknown target {target!r} (known: {', '.join(sorted(TARGETS))})")
    try:
        profile = choose_profile(profile_name, root)
        loaded = registry.load()
        selected, _ = renamed(split_codes(select), loaded.aliases)
        ignored, _ = renamed(split_codes(ignore), loaded.aliases)
        rules = select_items(loaded.for_profile(profile), selected, ignored, loaded.codes)
        steps = select_items(profile.steps, selected, ignored, loaded.codes)
    except (SessionError, SelectionError) as error:
        raise MigrationError(str(error)) from None
    options = RuleOptions(patcher=profile.patcher or "auto", device_entries=profile.device_entries)
    settings = Settings(
        TARGETS[target], tuple(rule.code for rule in rules), options,
        step_codes=tuple(step.code for step in steps),
    )  # fmt: skip
    return settings, profile


def migrate_source(
    text: str,
    path: str = "module.py",
    *,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    target: str = "npu",
) -> SourceResult:
    """Migrate one file's text with the generic profile's rules, as `migrate -
    --stdin-filename PATH` does. `path` picks the kind of file (`.py`, `.ipynb`, `.sh`,
    `requirements.txt`, ...) and is the path findings name."""
    settings, _ = _settings("generic", Path.cwd(), select, ignore, target)
    result = migrate_text(path, text.encode("utf-8"), settings)
    if result.status is Status.FAILED:
        return SourceResult(text, False, result.findings, result.error)
    new = result.new_data.decode("utf-8") if result.new_data is not None else text
    return SourceResult(new, new != text, result.findings)


def _outcome(result: FileResult) -> FileOutcome:
    return FileOutcome(result.path, result.status, result.findings, result.error, result.new_data)


def migrate_tree(
    path: str | Path,
    *,
    profile: str = "auto",
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    target: str = "npu",
    jobs: int = 1,
    write: bool = False,
) -> TreeResult:
    """Migrate a project folder (or one file) as `migrate PATH` does. With `write=False`
    (the default) nothing is written and each file's `new_data` holds what would be;
    `write=True` rewrites in place, all or nothing, with no version-control check (the
    caller decides): a failed write raises `migrator.engine.writes.WriteError`."""
    start = Path(path)
    if not start.exists():
        raise MigrationError(f"{start}: no such file or folder")
    root = start.resolve() if start.is_dir() else start.resolve().parent
    settings, chosen = _settings(profile, root, select, ignore, target)
    the_plan = plan(start, settings, chosen, max(jobs, 1))
    summary = RunSummary()
    files: list[FileOutcome] = []
    pending: list[FileResult] = []
    for result in migrate(the_plan):
        finish(summary, result)
        files.append(_outcome(result))
        if result.new_data is not None:
            pending.append(result)
    summary.skipped = len(the_plan.tree.skipped)
    if write and pending:
        summary = settle(summary, write_in_place(the_plan.root, pending))
        summary.skipped = len(the_plan.tree.skipped)
    return TreeResult(
        the_plan.root, chosen.name, tuple(files), replace(summary), write and bool(pending)
    )
