"""`python -m migrator.engine.write_index`: write each of the tool's rule packages'
`triggers.json` (see `migrator.engine.index`) from its rule classes, and the LibCST
shapes the walks read (`migrator.analysis.cst_walk.SHAPES_FILE`) for the installed
LibCST."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from migrator.engine import registry
from migrator.engine.index import INDEX_FILE, render


def expected() -> dict[Path, str]:
    """Each of the tool's own rule packages' index file and the text it should hold."""
    loaded = registry.load()
    found: dict[Path, str] = {}
    for package in registry.own_packages():
        folder = registry.package_folder(package)
        rules = [rule for rule in loaded.rules if loaded.packages[rule] == package]
        found[folder / INDEX_FILE] = render(package, folder, rules)
    return found


def shapes_stale() -> str | None:
    """The LibCST shapes file's text for the installed LibCST where the shipped one was
    written for that release (or is missing) and differs (a run then learns them, 0.025
    CPU s); None where it is current or for another release (not read, not stale: CI may
    install a newer LibCST than the one it was written for)."""
    from migrator.analysis import cst_walk

    path = cst_walk.SHAPES_FILE
    current = path.read_text(encoding="utf-8") if path.exists() else None
    if current is not None:
        try:
            data = json.loads(current)
        except ValueError:
            data = None
        written_for = data.get("libcst") if isinstance(data, dict) else None
        if written_for not in (None, cst_walk.libcst_version()):
            return None
    text = cst_walk.render_shapes()
    return None if text == current else text


def _stale_indexes() -> dict[Path, str]:
    """The trigger indexes whose text is not what their rules give now (missing ones too),
    with the text each should hold."""
    return {
        path: text
        for path, text in expected().items()
        if (path.read_text(encoding="utf-8") if path.exists() else None) != text
    }


def stale() -> dict[Path, str]:
    """The index files whose text is not what their rules give now (missing ones too),
    with the text each should hold: a run then imports all of a package's rules to read
    their triggers; and the LibCST shapes file where `shapes_stale` says so."""
    found = _stale_indexes()
    shapes = shapes_stale()
    if shapes is not None:
        from migrator.analysis.cst_walk import SHAPES_FILE

        found[SHAPES_FILE] = shapes
    return found


def main(argv: Sequence[str] | None = None) -> int:
    from migrator.analysis import cst_walk

    found = _stale_indexes()
    # Written for the installed LibCST even where the shipped file is for another.
    path = cst_walk.SHAPES_FILE
    shapes = cst_walk.render_shapes()
    if not path.exists() or path.read_text(encoding="utf-8") != shapes:
        found[path] = shapes
    for path, text in found.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
