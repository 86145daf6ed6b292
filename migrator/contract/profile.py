"""Profiles: a named selection of rules plus steps that run after them.

The generic profile is every rule in `rules/`. A `target_*` package adds profiles through
a `PROFILES` tuple in its `__init__`; its own rules run only under its profiles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from migrator.core.model import FileResult, SkippedPath
from migrator.core.options import RuleOptions
from migrator.core.project import EMPTY, ProjectView
from migrator.core.target import Target


@dataclass(frozen=True)
class StepInput:
    """What a profile step sees: the tree, the results so far (of the rules and of the
    steps before it, without file contents), the settings, the project view (with the
    target release) and the paths the walk left out (a report's counts name them)."""

    root: Path
    files: Sequence[str]
    results: Sequence[FileResult]
    target: Target
    options: RuleOptions
    project: ProjectView = EMPTY
    skipped: Sequence[SkippedPath] = ()


class Step(Protocol):
    """An extra step: returns results for files it creates or edits (never writes).

    A step reports under its own code, registered like a rule's: `--explain`, `--select`,
    `--ignore` and `--list-rules` know it, and `explain()` is its docstring.
    """

    code: str
    name: str
    summary: str

    def explain(self) -> str: ...

    def __call__(self, given: StepInput) -> list[FileResult]: ...


@dataclass(frozen=True)
class Profile:
    name: str
    summary: str
    packages: tuple[str, ...] = ()
    detect: Callable[[Path], bool] | None = None
    steps: tuple[Step, ...] = ()
    # The patcher the profile's projects need when no flag or config names one
    # (`RuleOptions.patcher`); None leaves the generic choice ("auto").
    patcher: str | None = None
    # False where the profile's hand port sets up only its training entries: main blocks
    # that only use the device are then reported (`RuleOptions.device_entries`).
    device_entries: bool = True
    # Generic rule codes the profile leaves out (its projects have nothing for them, and
    # its output is pinned byte for byte).
    leaves_out: tuple[str, ...] = ()


# The generic profile's steps come from the `STEPS` of the generic rules package
# (`rules/steps`); the registry adds them.
GENERIC = Profile(
    name="generic",
    summary="Every generic CUDA -> NPU rule; used when no project profile matches.",
)
