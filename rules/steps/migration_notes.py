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

from migrator.contract.profile import StepInput
from migrator.core.model import FileResult
from migrator.output.migration_notes import Codes, decide, render
from rules.cuda_requirements import CudaRequirements
from rules.entry_point_setup import EntryPointSetup
from rules.pyproject_dependencies import PyprojectDependencies

CODE = "NPU094"
CODES = Codes(CODE, EntryPointSetup.code, (CudaRequirements.code, PyprojectDependencies.code))


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
        text = render(given.root, given.results, given.project, CODES, given.skipped)
        return decide(given.root, text, given.results, CODE)
