"""Rules that expect a construct in the files they target, and say so when it is gone.

A project profile's rules fix constructs at known places of a known project. The project
moves on: a method is renamed, a bug is fixed upstream, a call is restructured. Such a rule
must then say "expected X in Y, not found; check by hand" instead of silently doing nothing.

The engine's fast path skips a file that holds none of a rule's tokens, so a rule that must
notice a missing construct has to see its target files whether or not they hold a token:
its trigger says `always=expected_in_paths`, and its `paths` (kept narrow: every matching
Python file is parsed whole) say which files it targets. Both engine paths then agree.
"""

from __future__ import annotations

from migrator.contract.trigger import FileView


def expected_in_paths(view: FileView) -> bool:
    """The `always` of a rule that reports when its construct is missing: it runs on
    every file its trigger's `paths` admit (the registry refuses it without `paths`)."""
    return True


def not_found(what: str, where: str) -> str:
    """The one wording every profile rule uses for a construct that is not there."""
    return f"expected {what} in {where}, not found; check by hand"
