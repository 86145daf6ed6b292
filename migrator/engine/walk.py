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
import stat
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from migrator.core.model import SkippedPath
from migrator.formats.sources import parse_temp

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
    # Symbolic links that stay inside the tree: (path, link text); `--out` copies them as
    # links (an absolute text is made relative, so the copy points into the copy).
    links: list[tuple[str, str]] = field(default_factory=list)
    # This tool's temporaries (`.NAME.HOST.PID.RANDOM.migrate-tmp`): never migrated or copied.
    temporaries: list[str] = field(default_factory=list)
    # The real path of root, for telling links that stay inside from links that lead out.
    real: str = ""
    # Folders already checked for a symbolic link on the way (True: none).
    folders: dict[str, bool] = field(default_factory=dict)


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


def _git_files(root: Path, *which: str) -> list[str] | None:
    """`git ls-files` of `which` (default: tracked and untracked-not-ignored) under root."""
    which = which or ("--cached", "--others")
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", *which, "--exclude-standard", "--", "."],
            capture_output=True, check=False, timeout=300,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    names = [name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name]
    return sorted(dict.fromkeys(names))


def _listed_by_git(path: Path) -> bool:
    """Whether the folder lies in a git work tree that does not ignore it. A folder the user
    named explicitly but git ignores (say, a vendored tree) is walked. One git process
    answers both: `check-ignore` exits 1 for a path the work tree does not ignore, 0 for
    one it ignores and 128 outside a work tree (a `rev-parse` first cost a process more,
    1.5 ms of CPU, a hundredth of a run over a project with nothing to do)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(path), "check-ignore", "-q", str(path)],
            capture_output=True, check=False, timeout=60,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 1


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
    patterns from a configuration file can be relative to that file's folder. Every path
    left out is in `skipped` with its reason (a left-out folder once, not its contents).
    """
    root = root.resolve()
    if root.is_file():
        return Tree(root.parent, [root.name], real=os.path.realpath(root.parent))
    tree = Tree(root, real=os.path.realpath(root))
    in_git = _listed_by_git(root)
    listed = _git_files(root) if in_git else None
    if listed is not None:
        tree.in_git = True
        venvs = _venv_roots(root, listed)
        reported: set[str] = set()
        for rel in listed:
            parts = rel.rstrip("/").split("/")
            left = _left_out_folder(parts, venvs)
            if left is not None:
                if left[0] not in reported:
                    reported.add(left[0])
                    tree.skipped.append(SkippedPath(*left))
                continue
            _consider(tree, rel, exclude, prefix)
        ignored = _git_files(root, "--others", "--ignored", "--directory") or []
        tree.skipped += [SkippedPath(rel.rstrip("/"), "ignored by git") for rel in ignored]
        tree.skipped.sort(key=lambda item: item.path)
        return tree
    for folder, dirs, names in os.walk(root, followlinks=False):
        base = Path(folder)
        rel_folder = base.relative_to(root).as_posix()
        keep = []
        for name in sorted(dirs):
            rel = f"{rel_folder}/{name}" if rel_folder != "." else name
            path = base / name
            if path.is_symlink():
                _link(tree, rel, folder=True)
            elif name in ALWAYS_SKIPPED_DIRS:
                tree.skipped.append(SkippedPath(rel, "tool, cache or version-control folder"))
            elif name in BUILD_DIRS:
                tree.skipped.append(SkippedPath(rel, "build output"))
            elif name.endswith(".egg-info"):
                tree.skipped.append(SkippedPath(rel, "package metadata (*.egg-info)"))
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


def _left_out_folder(parts: Sequence[str], venvs: set[str]) -> tuple[str, str] | None:
    """(folder, why) when a git-listed path lies in a folder that is always left out."""
    for i in range(1, len(parts)):
        folder = "/".join(parts[:i])
        if parts[i - 1] in ALWAYS_SKIPPED_DIRS:
            return folder, "tool, cache or version-control folder"
        if folder in venvs:
            return folder, "virtual environment"
    return None


def _inside(tree: Tree, path: str) -> bool:
    real = os.path.realpath(path)
    return real == tree.real or real.startswith(tree.real.rstrip(os.sep) + os.sep)


def _link(tree: Tree, rel: str, *, folder: bool) -> None:
    path = tree.root / rel
    if not _inside(tree, str(path)):
        kind = "symbolic link to a folder" if folder else "symbolic link"
        tree.skipped.append(SkippedPath(rel, f"{kind} out of PATH (not followed)"))
        return
    text = os.readlink(path)
    if os.path.isabs(text):
        text = os.path.relpath(os.path.realpath(path), os.path.realpath(path.parent))
    tree.links.append((rel, text))


def _plain_folder(tree: Tree, folder: str) -> bool:
    """Whether `folder` (relative) is a real folder of the tree, no symbolic link on the way."""
    known = tree.folders.get(folder)
    if known is None:
        known = os.path.realpath(tree.root / folder) == os.path.join(tree.real, *folder.split("/"))
        tree.folders[folder] = known
    return known


def _consider(tree: Tree, rel: str, exclude: Sequence[str], prefix: str) -> None:
    path = tree.root / rel.rstrip("/")
    rel = rel.rstrip("/")
    if parse_temp(path.name) is not None:
        tree.temporaries.append(rel)
        return
    if "/" in rel and not _plain_folder(tree, rel.rsplit("/", 1)[0]):
        # A folder on the way is (now) a symbolic link: git lists the files it tracked there.
        tree.skipped.append(SkippedPath(rel, "inside a symbolic link to a folder (not followed)"))
        return
    # One lstat answers what is_symlink, is_dir and is_file asked in turn (a link is
    # handled first, so for the rest it is their stat).
    try:
        mode: int | None = os.lstat(path).st_mode
    except (OSError, ValueError):
        mode = None
    if mode is not None and stat.S_ISLNK(mode):
        _link(tree, rel, folder=False)
        return
    if _excluded(prefix + rel, exclude):
        tree.skipped.append(SkippedPath(rel, "excluded by configuration"))
        return
    if mode is not None and stat.S_ISDIR(mode):
        tree.skipped.append(SkippedPath(rel, "git submodule or nested repository, not migrated"))
        return
    if mode is None or not stat.S_ISREG(mode):
        if mode is not None:
            tree.skipped.append(SkippedPath(rel, "not a regular file (FIFO, socket or device)"))
        return
    tree.files.append(rel)
