"""`python -m migrator`: the `migrate` command.

`python -m` puts the current folder first on `sys.path`, and a migrated project's own
`rules/` or `target_*/` folders must never be imported: the current folder is dropped
before anything else is imported (the `migrator` package itself is already imported by
`python -m` at this point). (A project file named `migrator.py` is imported by
`python -m` itself, before this runs; the `migrate` console script has no such hole.)
"""

from __future__ import annotations

import os
import sys

import migrator


def _drop_current_folder() -> None:
    here = os.path.realpath(os.getcwd())
    # Run from the tool's own checkout (an editable install that is a path entry), the
    # current folder is the tool itself: it stays.
    home = os.path.dirname(os.path.dirname(os.path.realpath(migrator.__file__)))
    if here == home:
        return
    sys.path[:] = [entry for entry in sys.path if entry and os.path.realpath(entry) != here]


_drop_current_folder()

from migrator.launch import main  # noqa: E402

main()
