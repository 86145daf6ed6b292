"""Finding the files of a project: what to migrate, what to copy, what to leave out.

Inside a git work tree the file list comes from git itself (tracked files plus untracked
ones that .gitignore does not ignore), so every .gitignore rule is honoured exactly. Outside
git the walk prunes the usual non-source folders. Virtual environments (any folder holding
`pyvenv.cfg`), `.git`, `node_modules`, `__pycache__` and build output are always left out,
and symbolic links are never followed.
"""

from __future__ import annotations

import fnmatch
import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from migrator.core.model import SkippedPath

ALWAYS_SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache",
     ".ruff_cache", ".tox", ".nox", ".eggs", "site-packages"}
)  # fmt: skip
BUILD_DIRS = frozenset({"build", "dist"})


@dataclass
class Tree:
    """The files of a project, as paths relative to its root (POSIX separators)."""

    root: Path
    files: list[str] = field(default_factory=list)
    skipped: list[SkippedPath] = field(default_factory=list)
    in_git: bool = False


def git_toplevel(path: Path) -> Path | None:
    folder = path if path.is_dir() else path.parent
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--show-toplevel"],
            capture_output=True, text=True, check=False, timeout=60,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return Path(done.stdout.strip())


def _git_files(root: Path) -> list[str] | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
             "--exclude-standard", "--", "."],
            capture_output=True, check=False, timeout=300,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    names = [name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name]
    return sorted(dict.fromkeys(names))


def _ignored_by_git(path: Path) -> bool:
    """A folder the user named explicitly but git ignores (say, a vendored tree) is walked."""
    try:
        done = subprocess.run(
            ["git", "-C", str(path), "check-ignore", "-q", str(path)],
            capture_output=True, check=False, timeout=60,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _excluded(rel: str, patterns: Sequence[str]) -> bool:
    """`--exclude` as documented: fnmatch globs on the path relative to PATH (`*` also
    matches `/`), and `dir` or `dir/` leaves out the whole folder.

    Not `pathspec`'s gitignore patterns: there `*` stops at `/` (`pkg/*.py` would no longer
    leave out `pkg/sub/x.py`) and a pattern without a slash matches at any depth (`legacy`
    would also leave out `src/legacy`), so configured patterns would change meaning.
    """
    return any(
        fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, pattern.rstrip("/") + "/*")
        for pattern in patterns
    )


def _venv_roots(root: Path, names: Iterable[str]) -> set[str]:
    """Folders (relative) that hold a `pyvenv.cfg`, found from a git file list."""
    return {name.rsplit("/", 1)[0] if "/" in name else "" for name in names
            if name.endswith("pyvenv.cfg")}  # fmt: skip


def walk(root: Path, exclude: Sequence[str] = (), prefix: str = "") -> Tree:
    """All project files under `root` (a folder or a single file).

    `exclude` holds glob patterns matched against `prefix + path relative to root`, so
    patterns from a configuration file can be relative to that file's folder.
    """
    root = root.resolve()
    if root.is_file():
        return Tree(root.parent, [root.name])
    tree = Tree(root)
    in_git = git_toplevel(root) is not None and not _ignored_by_git(root)
    listed = _git_files(root) if in_git else None
    if listed is not None:
        tree.in_git = True
        venvs = _venv_roots(root, listed)
        for rel in listed:
            parts = rel.split("/")
            if any(part in ALWAYS_SKIPPED_DIRS for part in parts[:-1]):
                continue
            if any("/".join(parts[:i]) in venvs for i in range(1, len(parts))):
                continue
            _consider(tree, rel, exclude, prefix)
        return tree
    for folder, dirs, names in os.walk(root, followlinks=False):
        base = Path(folder)
        rel_folder = base.relative_to(root).as_posix()
        keep = []
        for name in sorted(dirs):
            rel = f"{rel_folder}/{name}" if rel_folder != "." else name
            path = base / name
            if path.is_symlink():
                tree.skipped.append(SkippedPath(rel, "symbolic link to a folder (not followed)"))
            elif name in ALWAYS_SKIPPED_DIRS or name in BUILD_DIRS or name.endswith(".egg-info"):
                continue
            elif (path / "pyvenv.cfg").exists():
                tree.skipped.append(SkippedPath(rel, "virtual environment"))
            elif _excluded(prefix + rel, exclude):
                tree.skipped.append(SkippedPath(rel, "excluded by configuration"))
            else:
                keep.append(name)
        dirs[:] = keep
        for name in sorted(names):
            rel = f"{rel_folder}/{name}" if rel_folder != "." else name
            _consider(tree, rel, exclude, prefix)
    return tree


def _consider(tree: Tree, rel: str, exclude: Sequence[str], prefix: str) -> None:
    path = tree.root / rel
    if path.is_symlink():
        tree.skipped.append(SkippedPath(rel, "symbolic link (not followed)"))
        return
    if not path.is_file():
        return
    if _excluded(prefix + rel, exclude):
        tree.skipped.append(SkippedPath(rel, "excluded by configuration"))
        return
    tree.files.append(rel)
