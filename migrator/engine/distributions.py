"""Installed distributions, read from their metadata folders without importlib.metadata.

Every run asks which profile packages are installed (the `npu_migrator.targets` entry
points) and which releases of the parsing libraries are (the cache's run key).
`importlib.metadata` answers both, but importing it (email, zipfile, csv ...) and building
a `Distribution` for each installed project costs more than the rest of a run over files
no rule can act on. This reads the same folders the way its path finder does: each
`sys.path` entry in order, the `*.dist-info` and `*.egg-info` folders in it, the first
folder of a normalized project name winning. A path entry that is a file (a zip archive)
or an egg, or a finder that supplies distributions of its own, hands the question to
`importlib.metadata`, unchanged.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass

_SUFFIXES = (".dist-info", ".egg-info")
_ENTRY_POINTS = "entry_points.txt"


@dataclass(frozen=True)
class EntryPoint:
    """One entry point of a group: `name = value`, and the project that declares it."""

    name: str
    value: str
    # The declaring project's name, normalized (`npu_migrator`).
    project: str


def normalize(name: str) -> str:
    """A project name as importlib.metadata compares them: `Npu-Migrator` -> `npu_migrator`."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _folders() -> list[tuple[str, str]] | None:
    """(normalized name, metadata folder) of each installed project, the first found of a
    name; None where only importlib.metadata can tell."""
    import importlib.machinery

    for finder in sys.meta_path:
        if finder is not importlib.machinery.PathFinder and hasattr(finder, "find_distributions"):
            return None
    stamps: list[tuple[str, int]] = []
    for entry in sys.path:
        where = entry or "."
        try:
            found = os.stat(where)
        except OSError:
            continue
        if not stat.S_ISDIR(found.st_mode) or where.endswith(".egg"):
            return None  # a zip archive, an egg
        stamps.append((where, found.st_mtime_ns))
    key = tuple(stamps)
    held = _SCANS.get(key)
    if held is None:
        held = _scan([where for where, _ in stamps])
        _SCANS.clear()
        _SCANS[key] = held
    return held


# The last scan, by the folders read and their modification times (installing or removing a
# project changes its folder's): a run asks three questions of the same folders.
_SCANS: dict[tuple[tuple[str, int], ...], list[tuple[str, str]]] = {}


def _scan(folders: list[str]) -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for where in folders:
        try:
            children = os.listdir(where)
        except OSError:
            continue
        for child in children:
            low = child.lower()  # as importlib.metadata matches them
            if not low.endswith(_SUFFIXES):
                continue
            key = normalize(low.rpartition(".")[0].partition("-")[0])
            if key and key not in seen:
                seen[key] = os.path.join(where, child)
    return list(seen.items())


def _section(text: str, group: str) -> list[tuple[str, str]]:
    """The `name = value` lines of `[group]` in an entry_points.txt."""
    pairs: list[tuple[str, str]] = []
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
        elif current == group:
            name, _, value = line.partition("=")
            pairs.append((name.strip(), value.strip()))
    return pairs


def entry_points(group: str) -> list[EntryPoint]:
    """The group's entry points, in the order importlib.metadata lists them."""
    folders = _folders()
    if folders is None:
        return _entry_points_from_metadata(group)
    found: list[EntryPoint] = []
    for project, folder in folders:
        try:
            with open(os.path.join(folder, _ENTRY_POINTS), encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError):
            continue
        if f"[{group}]" not in text.replace(" ", ""):
            continue
        found.extend(EntryPoint(name, value, project) for name, value in _section(text, group))
    return found


def _entry_points_from_metadata(group: str) -> list[EntryPoint]:
    from importlib.metadata import entry_points as listed

    return [
        EntryPoint(
            entry.name,
            entry.value,
            normalize(entry.dist.metadata["Name"] or "") if entry.dist is not None else "",
        )
        for entry in listed(group=group)
    ]


def version(name: str) -> str | None:
    """The installed release of project `name`, or None when it is not installed."""
    folders = _folders()
    if folders is None:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as installed

        try:
            return installed(name)
        except PackageNotFoundError:
            return None
    wanted = normalize(name)
    for project, folder in folders:
        if project == wanted:
            return _metadata_version(folder)
    return None


def _metadata_version(folder: str) -> str | None:
    """The `Version:` header of a metadata folder's METADATA (PKG-INFO for an egg-info)."""
    for file_name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(folder, file_name), encoding="utf-8") as handle:
                for line in handle:
                    if not line.strip():
                        break  # the headers end at the first blank line
                    key, _, value = line.partition(":")
                    if key.strip().lower() == "version":
                        return value.strip()
        except (OSError, UnicodeDecodeError):
            continue
    return None
