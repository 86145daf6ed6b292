"""From a file on disk to a `FileResult`, for one file or many in parallel.

The engine never imports or runs the code it migrates; it reads bytes and parses them.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from migrator.model import Change, FileResult, MigrationWarning, Status, Suppression
from migrator.pyengine import migrate_python
from migrator.rule import PythonRule, Rule, RuleContext, RuleOptions, TextRule
from migrator.sources import SourceError, decode_python, decode_text
from migrator.suppressions import text_suppressions
from migrator.target import Target
from migrator.textlines import command_spans, style_for

PYTHON_SUFFIXES = (".py", ".pyi")
# Below this many files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 16


@dataclass(frozen=True)
class Settings:
    """What to run: picklable, so worker processes can rebuild the rule classes."""

    target: Target
    rule_codes: tuple[str, ...]
    options: RuleOptions
    full: bool = False

    def rules(self) -> list[type[Rule]]:
        from migrator import registry

        loaded = registry.load()
        found = [loaded.by_code(code) for code in self.rule_codes]
        return [rule for rule in found if rule is not None]


class _Prepared:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        rules = settings.rules()
        self.python_rules = [r for r in rules if issubclass(r, PythonRule)]
        self.text_rules = [r for r in rules if issubclass(r, TextRule)]

    def handles(self, rel: str) -> bool:
        if rel.endswith(PYTHON_SUFFIXES):
            return bool(self.python_rules)
        return any(rule.handles(rel) for rule in self.text_rules)

    def migrate(self, root: Path, rel: str) -> FileResult:
        try:
            data = (root / rel).read_bytes()
        except OSError as error:
            return FileResult(rel, Status.FAILED, error=f"cannot read: {error.strerror}")
        try:
            if rel.endswith(PYTHON_SUFFIXES):
                return self._python(rel, data)
            return self._text(rel, data)
        except SourceError as error:
            return FileResult(rel, Status.FAILED, error=str(error))
        except RecursionError:
            return FileResult(rel, Status.FAILED, error="nesting too deep to migrate")

    def _python(self, rel: str, data: bytes) -> FileResult:
        decoded = decode_python(data)
        outcome = migrate_python(
            decoded.text,
            rel,
            self.python_rules,
            self.settings.target,
            self.settings.options,
            full=self.settings.full,
        )
        new = decoded.encode(outcome.text)
        return _result(rel, data, new, outcome, outcome.unused_suppressions)

    def _text(self, rel: str, data: bytes) -> FileResult:
        decoded = decode_text(data)
        text = decoded.text
        suppressions = text_suppressions(text)
        ctx = RuleContext(
            path=rel,
            target=self.settings.target,
            options=self.settings.options,
            suppressions=suppressions,
        )
        if suppressions.skips_file():
            suppressions.skip_file()
        else:
            style = style_for(rel, text)
            for rule_class in self.text_rules:
                if rule_class.handles(rel) and (self.settings.full or rule_class.may_act_on(text)):
                    ctx.spans = command_spans(text, style) if suppressions.lines else None
                    text = rule_class(ctx).apply(text)
        return _result(rel, data, decoded.encode(text), ctx, suppressions.unused(rel))


class _Reported(Protocol):
    changes: list[Change]
    warnings: list[MigrationWarning]
    suppressed: list[Suppression]


def _result(
    rel: str, old: bytes, new: bytes, found: _Reported, unused: Sequence[Suppression] = ()
) -> FileResult:
    changes = tuple(sorted(found.changes))
    warnings = tuple(sorted(found.warnings))
    suppressed = tuple(sorted(set(found.suppressed)))
    unused = tuple(unused)
    if new == old:
        return FileResult(
            rel, Status.UNCHANGED, changes=changes, warnings=warnings, suppressed=suppressed,
            unused_suppressions=unused,
        )  # fmt: skip
    return FileResult(rel, Status.CHANGED, old, new, changes, warnings, suppressed, unused)


_WORKER: _Prepared | None = None
_WORKER_ROOT: Path | None = None


def _init_worker(settings: Settings, root: Path) -> None:
    global _WORKER, _WORKER_ROOT
    _WORKER = _Prepared(settings)
    _WORKER_ROOT = root


def _work(rel: str) -> FileResult:
    assert _WORKER is not None and _WORKER_ROOT is not None
    return _WORKER.migrate(_WORKER_ROOT, rel)


def candidates(settings: Settings, files: Sequence[str]) -> list[str]:
    """The files some selected rule could act on (by kind), in walk order."""
    prepared = _Prepared(settings)
    return [rel for rel in files if prepared.handles(rel)]


def default_jobs() -> int:
    return os.cpu_count() or 1


def migrate_files(
    root: Path, files: Sequence[str], settings: Settings, jobs: int
) -> Iterator[FileResult]:
    """Results in the order of `files`, streamed as they complete."""
    if jobs <= 1 or len(files) < PARALLEL_THRESHOLD:
        prepared = _Prepared(settings)
        for rel in files:
            yield prepared.migrate(root, rel)
        return
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    chunk = max(1, min(16, len(files) // (jobs * 8)))
    with context.Pool(jobs, initializer=_init_worker, initargs=(settings, root)) as pool:
        yield from pool.imap(_work, files, chunksize=chunk)


def migrate_text(rel: str, data: bytes, settings: Settings) -> FileResult:
    """Migrate one file's bytes that do not live on disk (stdin, notebooks' cells)."""
    prepared = _Prepared(settings)
    try:
        if rel.endswith(PYTHON_SUFFIXES) or not prepared.handles(rel):
            return prepared._python(rel, data)
        return prepared._text(rel, data)
    except SourceError as error:
        return FileResult(rel, Status.FAILED, error=str(error))
