"""Writing a run's results: every file or none, never over an edit, never through a link.

In place, a run writes in three steps. First every new file goes to a temporary beside its
target (`.NAME.HOST.PID.RANDOM.migrate-tmp`), with the target's owner, group and mode.
Then each target is checked to still hold the bytes the rules read (size and mtime, then
the content) and to lie inside PATH with no symbolic link on the way; a target that fails
is left alone and reported. Last, the temporaries are renamed over their targets, each
original kept under a second name (a hard link, no extra space) until all are renamed.
Any error or interruption before the end removes the temporaries, puts every renamed
original back and removes the folders the run made: every file is as it was.

`--out` copies the same way, each file through a temporary, and on failure removes all it
made in OUT, which was empty or absent before.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from migrator.formats.sources import (
    host_name,
    new_file_mode,
    open_temp,
    parse_temp,
    temp_path,
    write_fd,
)

# What a run that writes says about a file it left alone because of another process.
CHANGED_DURING_RUN = "changed by another process during the run; left as it is (rerun)"


class WriteError(Exception):
    """A write that failed; the message is one line naming the path and the cause."""


@dataclass(frozen=True)
class Write:
    """One file to write: its new bytes and what the rules read (None: the run creates it)."""

    rel: str
    data: bytes
    old: bytes | None
    # (size, mtime in ns) when the rules read it; None when not known.
    stamp: tuple[int, int] | None = None


@dataclass
class Outcome:
    written: list[str] = field(default_factory=list)
    # Files left alone, and why (changed during the run, a link out of PATH...).
    left: dict[str, str] = field(default_factory=dict)
    # What the report should say about a written file (a hard link split...).
    notes: dict[str, list[str]] = field(default_factory=dict)


def _outside(root_real: str, target: Path) -> str | None:
    """Why `target` must not be written (a link, or a folder on its way that leads out)."""
    folder = target.parent
    while not os.path.lexists(folder):
        folder = folder.parent
    real = os.path.realpath(folder)
    if real != root_real and not real.startswith(root_real.rstrip(os.sep) + os.sep):
        return f"a folder on its path leads out of PATH (to {real}); left as it is"
    if os.path.islink(target):
        return "is a symbolic link; left as it is"
    return None


def _changed(target: Path, write: Write) -> str | None:
    try:
        now = os.lstat(target)
    except FileNotFoundError:
        return None if write.old is None else "removed by another process during the run"
    if write.old is None:
        return "created by another process during the run; left as it is"
    if not stat.S_ISREG(now.st_mode):
        return "replaced by something that is no file during the run; left as it is"
    if write.stamp is not None and (now.st_size, now.st_mtime_ns) != write.stamp:
        return CHANGED_DURING_RUN
    if now.st_size != len(write.old) or target.read_bytes() != write.old:
        return CHANGED_DURING_RUN
    return None


@dataclass
class _Staged:
    write: Write
    target: Path
    tmp: Path
    backup: Path | None = None
    renamed: bool = False


def _keep_metadata(tmp: Path, before: os.stat_result, notes: list[str]) -> None:
    try:
        os.chown(tmp, before.st_uid, before.st_gid)
    except PermissionError:
        notes.append(
            f"owner {before.st_uid}:{before.st_gid} could not be kept (not permitted); "
            "the file now belongs to the user who ran migrate"
        )
    # After chown, which clears set-id bits.
    os.chmod(tmp, stat.S_IMODE(before.st_mode))
    if before.st_nlink > 1:
        notes.append(
            f"had {before.st_nlink - 1} other hard link(s); the link was split: they keep "
            "the old content"
        )


def commit(root: Path, writes: Sequence[Write]) -> Outcome:
    """Write `writes` under `root` all or nothing; see the module docstring.

    Raises WriteError (or Interrupted) after putting everything back.
    """
    outcome = Outcome()
    root_real = os.path.realpath(root)
    staged: list[_Staged] = []
    made: list[Path] = []
    try:
        for write in writes:
            target = root / write.rel
            why = _outside(root_real, target)
            if why is not None:
                outcome.left[write.rel] = why
                continue
            notes: list[str] = []
            before = os.lstat(target) if os.path.lexists(target) else None
            _make_folders(target.parent, made)
            fd, tmp = open_temp(target)
            staged.append(_Staged(write, target, tmp))
            write_fd(fd, write.data)
            if before is not None:
                _keep_metadata(tmp, before, notes)
            else:
                os.chmod(tmp, new_file_mode(write.data))
            if notes:
                outcome.notes[write.rel] = notes
        # Every temporary is written; check the targets as late as possible.
        ready: list[_Staged] = []
        for item in staged:
            why = _changed(item.target, item.write)
            if why is None:
                ready.append(item)
            else:
                outcome.left[item.write.rel] = why
                outcome.notes.pop(item.write.rel, None)
                item.tmp.unlink(missing_ok=True)
        staged = ready
        for item in staged:
            if item.write.old is not None:
                item.backup = _backup(item.target)
        for item in staged:
            os.replace(item.tmp, item.target)
            item.renamed = True
    except BaseException as error:
        _undo(staged, made)
        if isinstance(error, OSError):
            raise WriteError(_one_line(error, root)) from error
        raise
    for item in staged:
        if item.backup is not None:
            item.backup.unlink(missing_ok=True)
        outcome.written.append(item.write.rel)
    return outcome


def _backup(target: Path) -> Path | None:
    """A second name for the original, so a later failure can put it back without space."""
    name = temp_path(target)
    try:
        os.link(target, name, follow_symlinks=False)
    except OSError:
        return None
    return name


def _undo(staged: Sequence[_Staged], made: Sequence[Path]) -> None:
    for item in reversed(staged):
        with contextlib.suppress(OSError):
            if not item.renamed:
                item.tmp.unlink(missing_ok=True)
                if item.backup is not None:
                    item.backup.unlink(missing_ok=True)
            elif item.backup is not None:
                os.replace(item.backup, item.target)
            elif item.write.old is None:
                item.target.unlink(missing_ok=True)
            else:
                _restore(item.target, item.write.old)
    for folder in reversed(made):
        with contextlib.suppress(OSError):
            folder.rmdir()


def _restore(target: Path, data: bytes) -> None:
    fd, tmp = open_temp(target)
    try:
        write_fd(fd, data)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _make_folders(folder: Path, made: list[Path]) -> None:
    missing: list[Path] = []
    while not os.path.lexists(folder):
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        path.mkdir()
        made.append(path)


def _one_line(error: OSError, root: Path) -> str:
    where = error.filename
    shown = str(where) if where is not None else str(root)
    cause = error.strerror or type(error).__name__
    return f"{shown}: {cause}"


def copy_tree(
    source: Path, out: Path, files: Sequence[str], links: Sequence[tuple[str, str]],
    migrated: dict[str, bytes],
) -> None:  # fmt: skip
    """OUT as a copy of `files` (migrated ones as `migrated` says) and `links` (name, text).

    Each file goes through a temporary; on any failure everything made in OUT is removed.
    """
    existed = out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        done: set[str] = set()
        for rel in files:
            _copy_one(source / rel, out / rel, migrated.get(rel))
            done.add(rel)
        for rel, data in migrated.items():
            if rel not in done:
                _copy_one(None, out / rel, data)
        for rel, text in links:
            link = out / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(text, link)
    except BaseException as error:
        _empty(out, existed)
        if isinstance(error, OSError):
            raise WriteError(_one_line(error, out)) from error
        raise


def _copy_one(source: Path | None, target: Path, data: bytes | None) -> None:
    # shutil (bz2, lzma) is imported by what copies a tree, not by every run's start-up.
    import shutil

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = open_temp(target)
    try:
        if data is None:
            assert source is not None
            os.close(fd)
            shutil.copyfile(source, tmp)
            shutil.copystat(source, tmp)
        else:
            write_fd(fd, data, sync=False)
            mode = stat.S_IMODE(source.stat().st_mode) if source else new_file_mode(data)
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _empty(out: Path, existed: bool) -> None:
    import shutil

    if not existed:
        shutil.rmtree(out, ignore_errors=True)
        return
    for child in list(out.iterdir()) if out.is_dir() else []:
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def probe_writable(path: Path) -> None:
    """Raise OSError now if a file cannot be written at `path` (before anything else is);
    missing folders on the way are made, as writing the file would."""
    if os.path.lexists(path.parent) and not path.parent.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path.parent))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = open_temp(path)
    os.close(fd)
    tmp.unlink()


@dataclass
class Swept:
    removed: list[str] = field(default_factory=list)
    # Temporaries of a migrate that still runs (or runs on another host): left alone.
    live: list[str] = field(default_factory=list)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(root: Path, temporaries: Sequence[str], remove: bool) -> Swept:
    """Temporaries of this tool left by a run that no longer runs: removed when `remove`."""
    found = Swept()
    host = host_name()
    for rel in temporaries:
        owner = parse_temp(rel.rsplit("/", 1)[-1])
        if owner is None:
            continue
        if owner[0] != host or _running(owner[1]):
            found.live.append(rel)
        elif not remove:
            found.removed.append(rel)
        else:
            with contextlib.suppress(FileNotFoundError):
                (root / rel).unlink()
            found.removed.append(rel)
    return found
