"""Incremental runs: skip files unchanged since a run that found nothing to do in them.

A file is recorded as *clean* when the rules left it unchanged and reported nothing about
it (no edit, warning, suppression, unused suppression or note). The record's key is a hash
of the file's bytes and path together with a *run key*: the tool version, the rule
selection, the target and options, the versions of the parsing libraries, the engine's
source files (each one's path, size, and modification and status-change times: `_stamp`)
and the selected rules' packages (the digest of all their modules that the trigger index
was checked against, so a rule's source is read once a run).
Any change to those gives new keys, so old records are simply never found again (and
pruned after a while).

The cache is an SQLite database in the user's cache folder (on Linux the XDG rule, as
platformdirs has it, elsewhere platformdirs; the environment variable
NPU_MIGRATOR_CACHE_DIR overrides it). SQLite gives atomic commits and locking, so
worker processes (`--jobs`) and concurrent runs may read it while one run writes. A file
that is not a sound database of this layout is deleted and rebuilt, never trusted; one that
another process keeps locked for longer than TIMEOUT_S is busy, not broken: the run goes
on without it and leaves it alone. Any error while using the cache only turns it off for
the run: it can make a run faster, never wrong.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from migrator import __version__
from migrator.engine import distributions

if TYPE_CHECKING:
    from migrator.core.model import FileResult
    from migrator.engine.settings import Settings

ENV = "NPU_MIGRATOR_CACHE_DIR"
FILE_NAME = "clean-files.sqlite3"
SCHEMA_VERSION = "1"
TIMEOUT_S = 30.0
KEEP_S = 30 * 24 * 3600
_LIBRARIES = ("libcst", "nbformat")
# How recently a source may have changed for its stamp to add its content (`_stamp`).
_RACY_S = 10.0


def folder() -> Path:
    override = os.environ.get(ENV)
    if override:
        return Path(override)
    xdg = _xdg_folder()
    if xdg is not None:
        return xdg
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("npu-migrator", appauthor=False))


def _xdg_folder() -> Path | None:
    """platformdirs' answer on plain Linux, without importing it (its Unix module imports
    tempfile, shutil and random: a tenth of a run over files no rule acts on). The XDG
    base directory rule: `$XDG_CACHE_HOME` when it is an absolute path, else `~/.cache`.
    None (ask platformdirs) elsewhere, on Android, or where HOME is not an absolute path
    (platformdirs then reads the password database)."""
    if not sys.platform.startswith("linux") or "ANDROID_DATA" in os.environ:
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.environ.get("HOME", "")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return Path(base, "npu-migrator")


def _canonical(value: Any) -> Any:
    """JSON-able and independent of hash seeds (sets are sorted)."""
    if hasattr(value, "__dataclass_fields__"):
        return {name: _canonical(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, (set, frozenset)):
        return sorted(_canonical(item) for item in value)
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(key): _canonical(item) for key, item in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def _rule_packages(settings: Settings) -> dict[str, str]:
    """The selected rules' packages, by the `index.digest` of their modules that the catalog
    read them with (covering every module of the package, not only the selected ones)."""
    from migrator.engine import registry

    digests = registry.catalog().digests
    return {
        entry.package: digests[entry.package]
        for entry in settings.entries()
        if entry.package in digests
    }


def _source_files(settings: Settings) -> list[str]:
    """The engine's sources, and those of the selected rules whose package digest the
    catalog does not hold (a registry loaded in full)."""
    import migrator

    files = set(_python_files(os.path.dirname(migrator.__file__)))
    held = _rule_packages(settings)
    for entry in settings.entries():
        if entry.package in held:
            continue
        # Found without importing the rule (its package is imported already).
        spec = importlib.util.find_spec(entry.module)
        source = None if spec is None else spec.origin
        if source is not None and source.endswith(".py"):
            files.add(source)
            package_init = os.path.join(os.path.dirname(source), "__init__.py")
            if os.path.exists(package_init):
                files.add(package_init)
    return sorted(files)


def _python_files(folder: str) -> Iterator[str]:
    """The `.py` files under `folder`, the emulator's folders and bytecode caches left out
    (`os.scandir`: pathlib's `rglob` took a millisecond for the engine's 85 files)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in ("emulate", "__pycache__"):
                    yield from _python_files(entry.path)
            elif entry.name.endswith(".py"):
                yield entry.path


def _stamp(path: str) -> bytes:
    """What a source file contributes to the run key: its path, size, modification time and
    status-change time. Any write to the file moves its ctime, which no copy or restore can
    set back, so a changed source gives a new key (a touched but unchanged one too);
    reading and hashing every source instead took 3 ms a run. A file changed within the
    last `_RACY_S` seconds also adds its bytes' digest: on a file system whose times step
    by a second or two (FAT, HFS+), two edits of the same size within one step leave the
    same stamp, and a run between them would otherwise key the second edit's files to the
    first's records (git's "racily clean" rule)."""
    status = os.stat(path)
    stamp = f"{path}\0{status.st_size}\0{status.st_mtime_ns}\0{status.st_ctime_ns}\n"
    if time.time() - max(status.st_mtime, status.st_ctime) < _RACY_S:
        with open(path, "rb") as stream:
            stamp += hashlib.sha256(stream.read()).hexdigest() + "\n"
    return stamp.encode()


def run_key(settings: Settings) -> str:
    digest = hashlib.sha256()
    versions = {name: distributions.version(name) for name in _LIBRARIES}
    header = {
        "tool": __version__,
        "settings": _canonical(settings),
        "libraries": versions,
        "rule_packages": _rule_packages(settings),
    }
    digest.update(json.dumps(header, sort_keys=True).encode())
    for path in _source_files(settings):
        digest.update(_stamp(path))
    return digest.hexdigest()


@dataclass(frozen=True)
class CacheRef:
    """Where the cache is and the run key: small and picklable, for worker processes."""

    db: Path
    run_key: str

    def key(self, rel: str, digest: str) -> str:
        return hashlib.sha256(f"{self.run_key}\0{rel}\0{digest}".encode()).hexdigest()


def _connect(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(db, timeout=TIMEOUT_S, isolation_level=None)


def _layout_ok(connection: sqlite3.Connection) -> bool:
    if connection.execute("PRAGMA quick_check").fetchone() != ("ok",):
        return False
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    if not {"meta", "clean"} <= tables:
        return False
    row = connection.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
    return bool(row == (SCHEMA_VERSION,))


def _create(connection: sqlite3.Connection) -> None:
    connection.execute("BEGIN IMMEDIATE")
    connection.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
    connection.execute(
        "CREATE TABLE IF NOT EXISTS clean (key TEXT PRIMARY KEY, used REAL NOT NULL)"
    )
    connection.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
    connection.execute("COMMIT")


def open_cache(settings: Settings) -> tuple[CacheRef | None, str | None]:
    """The cache for this run, rebuilt if it is unsound; (None, why) when unusable."""
    db = folder() / FILE_NAME
    try:
        key = run_key(settings)
        db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return None, f"off ({db.parent}: {error.strerror})"
    note = None
    for attempt in range(2):
        try:
            connection = _connect(db)
            try:
                existing = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
                if existing == (0,):
                    _create(connection)
                if _layout_ok(connection):
                    return CacheRef(db, key), note
            finally:
                connection.close()
        except sqlite3.OperationalError as error:
            if _busy(error):
                # Busy is not broken: another run holds it. Never delete it for that.
                return None, f"off ({db} locked by another process for over {TIMEOUT_S:g} s)"
        except sqlite3.Error:
            pass
        if attempt == 0:
            note = f"{db} was not a sound cache; rebuilt it"
            _remove(db)
    return None, f"off ({db}: cannot be used)"


# SQLITE_BUSY and SQLITE_LOCKED (primary result codes; the constants are Python 3.11+).
_BUSY_CODES = (5, 6)


def _busy(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    return "locked" in str(error) or "busy" in str(error)


def _remove(db: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(OSError):
            Path(f"{db}{suffix}").unlink(missing_ok=True)


class CacheReader:
    """Looks records up; opened lazily so each worker process has its own connection."""

    def __init__(self, ref: CacheRef) -> None:
        self.ref = ref
        self._connection: sqlite3.Connection | None = None
        self._broken = False

    def hit(self, rel: str, digest: str) -> bool:
        if self._broken:
            return False
        try:
            if self._connection is None:
                uri = f"{self.ref.db.resolve().as_uri()}?mode=ro"
                self._connection = sqlite3.connect(uri, uri=True, timeout=TIMEOUT_S)
            row = self._connection.execute(
                "SELECT 1 FROM clean WHERE key = ?", (self.ref.key(rel, digest),)
            ).fetchone()
        except sqlite3.Error:
            self._broken = True
            return False
        return row is not None


def is_clean(result: FileResult) -> bool:
    from migrator.core.model import Status

    return (
        result.status is Status.UNCHANGED
        and result.digest is not None
        and not (result.changes or result.warnings or result.suppressed)
        and not (result.unused_suppressions or result.notes)
        and not (result.todos_added or result.todos_removed)
    )


def store(ref: CacheRef, results: Iterable[FileResult]) -> None:
    """Record the clean files of a run (and refresh the ones it skipped); best effort."""
    now = time.time()
    rows = [
        (ref.key(result.path, result.digest), now)
        for result in results
        if result.digest is not None and (result.from_cache or is_clean(result))
    ]
    try:
        connection = _connect(ref.db)
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany("INSERT OR REPLACE INTO clean VALUES (?, ?)", rows)
            connection.execute("DELETE FROM clean WHERE used < ?", (now - KEEP_S,))
            connection.execute("COMMIT")
        finally:
            connection.close()
    except sqlite3.Error:
        return
