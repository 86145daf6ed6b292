"""From a file on disk to a `FileResult`, for one file or many in parallel.

The engine never imports or runs the code it migrates; it reads bytes and parses them.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import os
import re
import signal
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from migrator.analysis.bindings import EMPTY, ModuleBindings
from migrator.contract.trigger import FileView, Trigger, files_pattern
from migrator.core.model import FileResult, Finding, Kind, Outcome, Status, settled
from migrator.core.options import RuleOptions
from migrator.engine import registry
from migrator.engine.cache import CacheReader, CacheRef
from migrator.engine.index import RuleEntry
from migrator.engine.settings import Settings
from migrator.formats.sources import SourceError, decode_python, decode_text
from migrator.formats.suppressions import MARKER, Suppressions, text_suppressions
from migrator.formats.textlines import command_spans, style_for

# The rules, LibCST and the Python and notebook engines are imported only for a file
# some rule's trigger may act on (`RuleEntry.load()`): a run over files none can act on
# imports none of them.
if TYPE_CHECKING:
    from migrator.analysis.occurrences import Finder, Occurrences
    from migrator.contract.rule import PythonRule, RuleContext
    from migrator.core.project import ProjectView
    from migrator.core.target import Target

PYTHON_SUFFIXES = (".py", ".pyi")
# migrator.formats.notebook.SUFFIX (that module is imported only for a notebook to migrate).
NOTEBOOK_SUFFIX = ".ipynb"
# A worker pays for its start (a fork, the rules set up again, results sent back) only
# with enough work behind it: about this many bytes of candidate files each, some 0.8 s of
# one core's rule passes on DiT4DiT-like code. Below it the run stays in this process.
BYTES_PER_WORKER = 256 * 1024


def migrate_python(
    text: str,
    path: str,
    rules: Sequence[type[PythonRule]],
    target: Target,
    options: RuleOptions,
    *,
    full: bool,
    inherited: ModuleBindings,
    project: ProjectView,
    aliases: Mapping[str, str],
    matched: bool = False,
    found: Occurrences | None = None,
) -> Outcome:
    """`migrator.engine.python.migrate_python`, imported on the first file that needs it
    (it imports LibCST)."""
    from migrator.engine import python

    # The collector waits while one file is migrated: the file's trees hold no cycle,
    # and each young collection during the file walked them all; they are freed when it
    # is done, and the collections after it find what cycles it left.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return python.migrate_python(
            text, path, rules, target, options, full=full, inherited=inherited,
            project=project, aliases=aliases, matched=matched, found=found,
        )  # fmt: skip
    finally:
        if enabled:
            gc.enable()


class _Prepared:
    def __init__(self, settings: Settings, cache: CacheRef | None = None) -> None:
        self.settings = settings
        entries = settings.entries()
        self.python_entries = [e for e in entries if not e.text]
        self.text_entries = [e for e in entries if e.text]
        self.cell_entries = [e for e in self.python_entries if e.trigger.notebooks]
        # A notebook is no entry script: entry points named by flags do not apply to it.
        self.cell_options = replace(settings.options, entry_points=())
        self.cache = CacheReader(cache) if cache is not None else None
        # Retired codes -> their successors, for suppression comments that name one.
        self.aliases = registry.catalog().aliases
        # Each entry's Python rule class once loaded (False: the entry is no Python rule).
        self._loaded: dict[str, type[PythonRule] | Literal[False]] = {}

    @functools.cached_property
    def _finder(self) -> Finder:
        """One automaton over every literal the Python rules' triggers ask about."""
        from migrator.analysis.occurrences import finder

        return finder(
            frozenset(
                literal for entry in self.python_entries for literal in entry.trigger.literals()
            )
        )

    def _classes(self, entries: Sequence[RuleEntry]) -> list[type[PythonRule]]:
        """The entries' Python rule classes, each imported and looked up once per run
        (`RuleEntry.load` asks `importlib` each time: 0.06 CPU s over torch's files)."""
        from migrator.contract.rule import PythonRule

        loaded = self._loaded
        found: list[type[PythonRule]] = []
        for entry in entries:
            rule = loaded.get(entry.code)
            if rule is None:
                candidate = entry.load()
                rule = loaded[entry.code] = (
                    candidate if issubclass(candidate, PythonRule) else False
                )
            if rule is not False:
                found.append(rule)
        return found

    @functools.cached_property
    def _text_files(self) -> re.Pattern[str]:
        """Every text rule's `files` in one regex: a file none of them names (most of a
        tree's other files: torch's 2,400 headers) is asked about once, not per rule."""
        return files_pattern(
            tuple(pattern for entry in self.text_entries for pattern in entry.trigger.files)
        )

    def handles(self, rel: str) -> bool:
        if rel.endswith(PYTHON_SUFFIXES):
            return bool(self.python_entries)
        if rel.endswith(NOTEBOOK_SUFFIX):
            return bool(self.cell_entries)
        named = self._text_files
        if named.match(rel.rsplit("/", 1)[-1]) is None and named.match(rel) is None:
            return False
        return any(entry.trigger.handles(rel) for entry in self.text_entries)

    def migrate(self, root: Path, rel: str) -> FileResult:
        try:
            # Stat first: a file edited after this is seen as changed when it is written.
            # One open serves both (a path stat and `read_bytes` resolved it twice).
            with open(os.path.join(root, rel), "rb") as stream:
                before = os.fstat(stream.fileno())
                data = stream.read()
        except OSError as error:
            return FileResult(rel, Status.FAILED, error=f"cannot read: {error.strerror}")
        stamp = (before.st_size, before.st_mtime_ns)
        if self.cache is None:
            return replace(self.migrate_data(rel, data), stamp=stamp)
        digest = hashlib.sha256(data).hexdigest()
        if self.cache.hit(rel, digest):
            return FileResult(rel, Status.UNCHANGED, from_cache=True, digest=digest)
        return replace(self.migrate_data(rel, data), digest=digest, stamp=stamp)

    def migrate_data(self, rel: str, data: bytes, *, python: bool = False) -> FileResult:
        """One file's bytes; `python` forces Python whatever the name says."""
        try:
            if python or rel.endswith(PYTHON_SUFFIXES):
                return self._python(rel, data)
            if rel.endswith(NOTEBOOK_SUFFIX):
                return self._notebook(rel, data)
            return self._text(rel, data)
        except SourceError as error:
            return FileResult(rel, Status.FAILED, error=str(error))
        except Exception as error:  # one file that breaks the engine must not stop the run
            message, internal = _crash(error)
            return FileResult(rel, Status.FAILED, error=message, internal=internal)

    def _run_python(
        self, rel: str, text: str, rules: Sequence[type[PythonRule]], options: RuleOptions,
        inherited: ModuleBindings = EMPTY, matched: bool = False,
        occurrences: Occurrences | None = None,
    ) -> Outcome:  # fmt: skip
        """Rules, then (with --annotate) TODO comments placed on the migrated text
        (`matched`: the caller kept only the rules whose trigger admits `rel` and matches
        `text` or is forced, so that is not checked again; `occurrences`: where the
        rules' literals occur in `text`)."""
        settings = self.settings

        def run(source: str) -> Outcome:
            return migrate_python(
                source, rel, rules, settings.target, options, full=settings.full,
                inherited=inherited, project=settings.project, aliases=self.aliases,
                matched=matched and source is text, found=occurrences,
            )  # fmt: skip

        outcome = run(text)
        found = Outcome(outcome.text, outcome.findings, outcome.unused_suppressions)
        warnings = _warnings(outcome.findings)
        if not self.settings.annotate:
            return found
        from migrator.engine.annotate import TODO_MARK, annotate  # only with --annotate

        if warnings or TODO_MARK in outcome.text:

            def warnings_for(source: str) -> list[Finding]:
                return warnings if source == text else _warnings(run(source).findings)

            annotated = annotate(outcome.text, "python", warnings_for)
            found.text = annotated.text
            found.todos_added, found.todos_removed = annotated.added, annotated.removed
        return found

    def _python(self, rel: str, data: bytes) -> FileResult:
        decoded = decode_python(data)
        text = decoded.text
        entries = self.python_entries
        settings = self.settings
        matched = not (settings.full or settings.annotate or MARKER in text)
        occurrences: Occurrences | None = None
        if matched:
            # The rules `migrate_python` would keep for this file (the others it drops
            # unread), so only they are imported; with none it would return the text.
            view = FileView(rel, text, settings.options, settings.project, settings.target)
            occurrences = self._finder.scan(text)
            entries = [
                entry
                for entry in entries
                if entry.trigger.admits(rel)
                and (
                    (
                        entry.trigger.may_match(occurrences)
                        and entry.trigger.matches(text, occurrences)
                    )
                    or entry.trigger.forced(view)
                )
            ]
            if not entries:
                return _result(rel, data, decoded.encode(text), Outcome(text))
        found = self._run_python(
            rel, text, self._classes(entries), settings.options, matched=matched,
            occurrences=occurrences,
        )  # fmt: skip
        return _result(rel, data, decoded.encode(found.text), found)

    def _triggered(self, trigger: Trigger, rel: str, text: str) -> bool:
        """Whether a rule's trigger lets it act on this text (its `files` already checked)."""
        settings = self.settings
        view = FileView(rel, text, settings.options, settings.project, settings.target)
        return trigger.forced(view) or (trigger.matches(text) and trigger.passes(view))

    def may_act(self, rules: Sequence[RuleEntry], rel: str, text: str) -> bool:
        """The one pre-filter, for every kind of file: on the code itself (a notebook's
        cells, not its JSON), whether some rule's trigger matches (its tokens or patterns
        occur, or its `always` holds), or a suppression or (with --annotate) a TODO comment
        that a run may have to report."""
        if self.settings.full or MARKER in text:
            return True
        if self.settings.annotate:
            from migrator.engine.annotate import TODO_MARK

            if TODO_MARK in text:
                return True
        view = FileView(rel, text, self.cell_options, self.settings.project, self.settings.target)
        return any(
            rule.trigger.admits(rel) and (rule.trigger.matches(text) or rule.trigger.forced(view))
            for rule in rules
        )

    def _notebook(self, rel: str, data: bytes) -> FileResult:
        from migrator.formats.notebook import cell_code, migrate_notebook

        if not self.may_act(self.cell_entries, rel, cell_code(data)):
            return FileResult(rel, Status.UNCHANGED)
        cell_rules = self._classes(self.cell_entries)

        def run_cell(cell: str, inherited: ModuleBindings) -> Outcome:
            return self._run_python(rel, cell, cell_rules, self.cell_options, inherited)

        return migrate_notebook(rel, data, run_cell)

    def _run_text(self, rel: str, text: str) -> tuple[str, list[Finding], Suppressions]:
        """The text rules' edits and findings; a rule is imported only once its trigger's
        data says it may act (its gate, read from the class, then decides)."""
        suppressions = text_suppressions(text).follow(self.aliases)
        findings = list(suppressions.aliased(rel))
        if suppressions.skips_file():
            suppressions.skip_file()
            return text, findings, suppressions
        settings = self.settings
        style = style_for(rel, text)
        ctx: RuleContext | None = None
        for entry in self.text_entries:
            if not entry.trigger.handles(rel):
                continue
            if not settings.full:
                view = FileView(rel, text, settings.options, settings.project, settings.target)
                if not (entry.trigger.forced(view) or entry.trigger.matches(text)):
                    continue
            from migrator.contract.rule import TextRule

            rule_class = entry.load()
            assert issubclass(rule_class, TextRule)
            if settings.full or self._triggered(rule_class.trigger, rel, text):
                if ctx is None:
                    ctx = self._text_context(rel, suppressions, findings)
                from migrator.engine.fixes import apply_fixes

                ctx.spans = command_spans(text, style) if suppressions.lines else None
                text = apply_fixes(text, rule_class(ctx).check(text), ctx)
        return text, findings if ctx is None else ctx.findings, suppressions

    def _text_context(
        self, rel: str, suppressions: Suppressions, findings: list[Finding]
    ) -> RuleContext:
        from migrator.contract.rule import RuleContext

        ctx = RuleContext(
            path=rel,
            target=self.settings.target,
            options=self.settings.options,
            suppressions=suppressions,
            project=self.settings.project,
        )
        ctx.findings.extend(findings)
        return ctx

    def _text(self, rel: str, data: bytes) -> FileResult:
        decoded = decode_text(data)
        text, findings, suppressions = self._run_text(rel, decoded.text)
        found = Outcome(text, findings, suppressions.unused(rel))
        warnings = _warnings(findings)
        style = style_for(rel, decoded.text)
        if not self.settings.annotate or style not in ("shell", "requirements"):
            return _result(rel, data, decoded.encode(found.text), found)
        from migrator.engine.annotate import TODO_MARK, annotate

        if warnings or TODO_MARK in text:
            assert style is not None

            def warnings_for(source: str) -> list[Finding]:
                if source == decoded.text:
                    return warnings
                return _warnings(self._run_text(rel, source)[1])

            annotated = annotate(text, style, warnings_for)
            found.text = annotated.text
            found.todos_added, found.todos_removed = annotated.added, annotated.removed
        return _result(rel, data, decoded.encode(found.text), found)


def _crash(error: BaseException) -> tuple[str, bool]:
    """One line for a file the engine could not process, and whether it is a bug in the tool
    (exit 70) rather than in the input (exit 2). LibCST's code generation hitting
    the recursion limit on deeply nested code surfaces as chained KeyErrors, so the whole
    chain is searched for the RecursionError."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, RecursionError):
            return "nesting too deep to migrate (Python's recursion limit); left unchanged", False
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    text = str(error).split("\n", 1)[0][:200]
    return (
        f"internal error ({type(error).__name__}: {text}); left unchanged, please report it",
        True,
    )


def _result(rel: str, old: bytes, new: bytes, found: Outcome) -> FileResult:
    changed = new != old
    return FileResult(
        rel,
        Status.CHANGED if changed else Status.UNCHANGED,
        old if changed else None,
        new if changed else None,
        settled(found.findings),
        tuple(found.unused_suppressions),
        todos_added=found.todos_added,
        todos_removed=found.todos_removed,
    )


def _warnings(findings: Sequence[Finding]) -> list[Finding]:
    return sorted((f for f in findings if f.kind is Kind.WARNING), key=Finding.sort_key)


_WORKER: _Prepared | None = None
_WORKER_ROOT: Path | None = None


# The cyclic garbage collector's thresholds while files are migrated. Python's default
# (a young collection every 700 allocations, a full one at 10 x 10 of those) makes it walk
# each file's stdlib and LibCST trees, millions of objects on torch's source, again and
# again, although they hold no cycles and go when their file is done (by reference
# count). Fewer collections took 7% off a run over torch's `_inductor` at the same peak
# memory (README, Performance); the collector still runs, so the odd cycle is freed.
# 200,000 rather than 50,000: on all of torch's source the collector's time went from
# 0.53 to 0.24 s (105 -> 60 collections), at the same peak RSS (240 MB).
GC_THRESHOLDS = (200_000, 20, 20)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Migrate with `GC_THRESHOLDS`, the caller's thresholds restored after, and what is
    alive at the start frozen (`gc.freeze`) where the caller froze nothing."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    # What is alive when the run starts (the modules, the rules, the settings) lives
    # through it: the older generations' collections no longer walk it (on torch's
    # source they took 0.08 s, then 0.01). A caller's own frozen objects stay frozen.
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        yield
    finally:
        if freeze:
            gc.unfreeze()
        gc.set_threshold(*before)


def _init_worker(settings: Settings, root: Path, cache: CacheRef | None) -> None:
    global _WORKER, _WORKER_ROOT
    # A worker only migrates: its thresholds stay set until it ends.
    gc.set_threshold(*GC_THRESHOLDS)
    # The parent handles Ctrl-C and SIGTERM and ends the pool; workers only stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _WORKER = _Prepared(settings, cache)
    _WORKER_ROOT = root


def _work(rel: str) -> FileResult:
    assert _WORKER is not None and _WORKER_ROOT is not None
    return _WORKER.migrate(_WORKER_ROOT, rel)


def candidates(settings: Settings, files: Sequence[str]) -> list[str]:
    """The files some selected rule could act on (by kind), in walk order."""
    prepared = _Prepared(settings)
    return [rel for rel in files if prepared.handles(rel)]


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which containers and `taskset`
    narrow), not the machine's."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# How long the engine watches the cores before it decides on a pool (only when the work
# is large enough for one): five of /proc/stat's 10 ms ticks per core.
BUSY_WINDOW_S = 0.05


@dataclass(frozen=True)
class CoreWatch:
    """A first look at the cores (`/proc/stat`), taken when a run starts planning, so
    that `busy_cores` can read how busy they were over the planning (walking the tree,
    reading the project) instead of sleeping for its window: with this process's own
    CPU time then, which it subtracts."""

    cpus: frozenset[int] | None
    ticks: dict[int, tuple[int, int]] | None
    wall: float
    cpu: float

    @staticmethod
    def start() -> CoreWatch:
        cpus = _usable_cpus()
        return CoreWatch(cpus, _cpu_ticks(cpus), time.monotonic(), time.process_time())


def busy_cores(window: float = BUSY_WINDOW_S, since: CoreWatch | None = None) -> float:
    """How many of this process's cores other work keeps busy now.

    On Linux: the share of the time since `since` (a look taken earlier in this run) each
    usable core spent not idle (`/proc/stat`), summed, less this process's own share;
    with no earlier look, or one less than `window` seconds ago, it sleeps the rest of
    the window. The 1-minute load average (the fallback elsewhere) lags: it still counts
    a job that ended seconds ago, such as the previous run of this tool, and takes a
    minute to see one that just started.
    """
    cpus = _usable_cpus()
    if since is not None and (since.cpus != cpus or since.ticks is None):
        since = None
    first = since.ticks if since is not None else _cpu_ticks(cpus)
    if first is None:
        try:
            return os.getloadavg()[0]
        except (AttributeError, OSError):
            return 0.0
    elapsed = time.monotonic() - since.wall if since is not None else 0.0
    if elapsed < window:
        time.sleep(window - elapsed)
    second = _cpu_ticks(cpus)
    if second is None:
        return 0.0
    busy = 0.0
    for cpu, (total, idle) in second.items():
        before = first.get(cpu)
        if before is None or total <= before[0]:
            continue
        busy += 1.0 - (idle - before[1]) / (total - before[0])
    if since is None:
        # This process slept through the window.
        return busy
    own = (time.process_time() - since.cpu) / max(time.monotonic() - since.wall, window)
    return max(busy - own, 0.0)


def _usable_cpus() -> frozenset[int] | None:
    try:
        return frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def _cpu_ticks(cpus: frozenset[int] | None) -> dict[int, tuple[int, int]] | None:
    """Per usable core: (all ticks, idle ticks) since boot, from /proc/stat; None where
    there is no such file."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    ticks: dict[int, tuple[int, int]] = {}
    for line in lines:
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or not name[3:].isdigit():
            continue
        cpu = int(name[3:])
        if cpus is not None and cpu not in cpus:
            continue
        # user nice system idle iowait irq softirq steal (guest time is inside user)
        values = [int(value) for value in rest.split()[:8]]
        if len(values) < 5:
            continue
        ticks[cpu] = (sum(values), values[3] + values[4])
    return ticks or None


def auto_jobs(work_bytes: int, cores: int, busy: float) -> int:
    """Workers for `work_bytes` of candidate files on `cores` usable cores of which `busy`
    are taken: one per BYTES_PER_WORKER of work, at most one per free core; 1 means no
    pool (on a busy machine a pool's workers only queue behind the other jobs)."""
    free = int(cores - busy + 0.5)
    by_work = 1 + work_bytes // BYTES_PER_WORKER
    return max(1, min(cores, free, by_work))


def _work_bytes(root: Path, files: Sequence[str]) -> int:
    total = 0
    for rel in files:
        try:
            total += os.stat(root / rel).st_size
        except OSError:
            continue
    return total


def migrate_files(
    root: Path,
    files: Sequence[str],
    settings: Settings,
    jobs: int | None,
    cache: CacheRef | None = None,
    watch: CoreWatch | None = None,
) -> Iterator[FileResult]:
    """Results in the order of `files`, streamed as they complete.

    `jobs` None lets the work decide (`auto_jobs`: the candidate files' size, the usable
    cores and how busy they are, since `watch` where the run took one); a number forces
    that many worker processes.
    """
    if jobs is None:
        work, cores = _work_bytes(root, files), usable_cores()
        # How busy the cores are is read only where it matters.
        wanted = auto_jobs(work, cores, 0.0)
        jobs = auto_jobs(work, cores, busy_cores(since=watch)) if wanted > 1 else 1
    if jobs <= 1 or len(files) < 2:
        prepared = _Prepared(settings, cache)
        with fewer_collections():
            for rel in files:
                yield prepared.migrate(root, rel)
        return
    # Imported here: most runs start no pool, and multiprocessing (pickle, socket) is a
    # start-up cost of every run that imports it.
    import multiprocessing

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context = multiprocessing.get_context(method)
    chunk = max(1, min(16, len(files) // (jobs * 8)))
    with context.Pool(jobs, initializer=_init_worker, initargs=(settings, root, cache)) as pool:
        yield from pool.imap(_work, files, chunksize=chunk)


def migrate_text(rel: str, data: bytes, settings: Settings) -> FileResult:
    """Migrate one file's bytes that do not live on disk (stdin, golden cases).

    The kind of file comes from `rel`: notebooks and text files some rule handles are
    treated as such, a name without a suffix as Python, and any other kind (`notes.md`)
    is no rule's business and comes back unchanged.
    """
    prepared = _Prepared(settings)
    known = rel.endswith((*PYTHON_SUFFIXES, NOTEBOOK_SUFFIX)) or prepared.handles(rel)
    if not known and "." in rel.rsplit("/", 1)[-1]:
        return FileResult(rel, Status.UNCHANGED)
    return prepared.migrate_data(rel, data, python=not known)
