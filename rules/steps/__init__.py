"""The generic profile's steps, run after its rules: `NPU_MIGRATION.md` (NPU094).

A subpackage, so the registry's walk of `rules/` (modules only) does not take it for a
rule module; `rules/__init__.py` hands `STEPS` to the registry.
"""

from __future__ import annotations

from migrator.contract.profile import Step
from rules.steps.migration_notes import MigrationNotes

STEPS: tuple[Step, ...] = (MigrationNotes(),)
