"""What a run migrates with: the target, the selected rules and their options."""

from __future__ import annotations

from dataclasses import dataclass

from migrator.contract.rule import Rule, RuleOptions
from migrator.core.target import Target


@dataclass(frozen=True)
class Settings:
    """What to run: picklable, so worker processes can rebuild the rule classes."""

    target: Target
    rule_codes: tuple[str, ...]
    options: RuleOptions
    full: bool = False
    # Leave a `# NPU-TODO(CODE): action` comment above each warning (migrator.engine.annotate).
    annotate: bool = False

    def rules(self) -> list[type[Rule]]:
        from migrator.engine import registry

        loaded = registry.load()
        found = [loaded.by_code(code) for code in self.rule_codes]
        return [rule for rule in found if rule is not None]
