"""Which files are the run's entry scripts, as a rule's `Trigger` asks it.

A plain module (no LibCST) so that the engine can check an `always` that names these
files without importing the rule that declares it (see `migrator.engine.index`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from migrator.contract.trigger import FileView
from migrator.core.options import RuleOptions


def entry_paths(paths: Sequence[str]) -> set[str]:
    """Project-relative paths as the walk spells them (`./train.py` is `train.py`)."""
    return {PurePosixPath(path).as_posix().removeprefix("./") for path in paths}


def named(options: RuleOptions) -> set[str]:
    """The files named with `--entry` (or `entry` in `[tool.migrate]`)."""
    return entry_paths(options.entry_points)


def is_named_or_launched(view: FileView) -> bool:
    """A file named with --entry, or (when none is named) one a launch command of the
    project runs: it is an entry even when it holds none of a rule's tokens."""
    if view.path in named(view.options):
        return True
    return not view.options.entry_points and view.project.entry(view.path) is not None
