"""Write `NPU_MIGRATION.md`: what needs a person, by action, and the host set-up.

Why: a migration that ends with a diff leaves the user to find out on the host what is
left: which warnings need which work, which torch-npu, torch and CANN to install, that
CANN's `set_env.sh` must be sourced, which scripts were set up as entries, and how their
launch lines run on NPUs (HCCL instead of NCCL). The generic profile's last step writes
that down from the run's own results: the torch-npu release the run targeted and why,
the torch it requires, the CANN toolkit it pairs with (from the released wheels' data),
the entry scripts of the project's launch lines, and each launch line with what changes.
The counts in it are the counts of the run that wrote it, the file itself included.

Safety: a new file only. It is created where `NPU_MIGRATION.md` is free and the run changed
something (a run with nothing to migrate writes no notes); `--dry-run` prints it as a
diff. A file already at that path is never overwritten: a later run that finds nothing new
leaves it quietly, one that does keeps it and warns (delete it to get fresh notes).
`--ignore NPU094` turns the step off.
"""

from __future__ import annotations

import inspect
import os

from migrator.contract.profile import StepInput
from migrator.core.model import FileResult, Status

CODE = "NPU094"
# The codes the notes read results by: entry-point-setup's, and those of the dependency
# rules (cuda-requirements, pyproject-dependencies). Written as codes, which never change
# meaning (rules/__init__.py), so writing the notes imports none of those rules (nor
# tomlkit); tests/test_startup.py checks that they are those rules' codes.
ENTRY_SETUP = "NPU030"
DEPENDENCIES = ("NPU102", "NPU114")
# migrator.output.migration_notes.PATH, which is imported only when the notes are written.
PATH = "NPU_MIGRATION.md"


def _news(given: StepInput) -> bool:
    return any(r.changes or r.status is not Status.UNCHANGED for r in given.results)


class MigrationNotes:
    """The generic profile's last step: `NPU_MIGRATION.md` from the whole run."""

    code = CODE
    name = "migration-notes"
    summary = "Write NPU_MIGRATION.md: what needs a person, by action, and the host set-up."
    # Its one warning says the user's file was kept instead of the notes of this run.
    action = "generated-file"

    def explain(self) -> str:
        return inspect.cleandoc(__doc__ or "")

    def __call__(self, given: StepInput) -> list[FileResult]:
        if not _news(given):
            # Nothing to write: the notes are not rendered (a run with nothing to migrate
            # stays free of the report writers).
            # The same results as `decide` gives without news.
            exists = os.path.lexists(given.root / PATH)
            return [FileResult(PATH, Status.UNCHANGED)] if exists else []
        from migrator.output.migration_notes import Codes, decide, render

        codes = Codes(CODE, ENTRY_SETUP, DEPENDENCIES)
        text = render(given.root, given.results, given.project, codes, given.skipped)
        return decide(given.root, text, given.results, CODE)
