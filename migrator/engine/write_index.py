"""`python -m migrator.engine.write_index`: write each of the tool's rule packages'
`triggers.json` (see `migrator.engine.index`) from its rule classes."""

from __future__ import annotations

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


def stale() -> dict[Path, str]:
    """The index files whose text is not what their rules give now (missing ones too),
    with the text each should hold: a run then imports all of a package's rules to read
    their triggers."""
    return {
        path: text
        for path, text in expected().items()
        if (path.read_text(encoding="utf-8") if path.exists() else None) != text
    }


def main(argv: Sequence[str] | None = None) -> int:
    for path, text in stale().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
