"""What a run migrates with: the target, the selected rules and their options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from migrator.core.options import RuleOptions
from migrator.core.project import EMPTY as EMPTY_PROJECT
from migrator.core.project import ProjectView
from migrator.core.target import Target

if TYPE_CHECKING:
    from migrator.contract.rule import Rule
    from migrator.engine.index import RuleEntry


@dataclass(frozen=True)
class Settings:
    """What to run: picklable, so worker processes can rebuild the rule classes."""

    target: Target
    rule_codes: tuple[str, ...]
    options: RuleOptions
    full: bool = False
    # Leave a `# NPU-TODO(CODE): action` comment above each warning (migrator.engine.annotate).
    annotate: bool = False
    # The profile steps (DIT090...) to run, by code; None: all of the profile's.
    step_codes: tuple[str, ...] | None = None
    # Facts about the whole project (migrator.engine.project), computed once per run; part
    # of the cache's run key, since it is part of the settings.
    project: ProjectView = EMPTY_PROJECT
    # The torch-npu release asked for (`--torch-npu`, `[tool.migrate] torch-npu`) and where
    # that was said; None: chosen from the project's pins (migrator.data.release.resolve).
    torch_npu: str | None = None
    torch_npu_origin: str = "--torch-npu"

    def entries(self) -> list[RuleEntry]:
        """The selected rules as index entries, in run order; nothing is imported."""
        from migrator.engine import registry

        loaded = registry.catalog()
        found = [loaded.by_code(code) for code in self.rule_codes]
        return [entry for entry in found if entry is not None]

    def rules(self) -> list[type[Rule]]:
        """The selected rule classes, in run order (imports every one of them)."""
        return [entry.load() for entry in self.entries()]
