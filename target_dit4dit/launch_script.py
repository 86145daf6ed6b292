"""A launch script for one Ascend node: `scripts/train_npu.sh`.

Upstream's run scripts hard-code a process count (64, 16 or 8) and GPU settings. On an
Ascend node a rank per NPU is the limit (HCCL refuses two ranks on one device), so the
script counts the visible NPUs and refuses more processes than that. It exports the NPU
run-time settings (operator dispatch queue, expandable memory segments, CPU affinity,
offline wandb; HCCL's timeouts keep their defaults), puts torch's and torch_npu's
libraries on LD_LIBRARY_PATH from the active interpreter at run time (no environment path
is written in) and runs
accelerate with that same interpreter (`"$python_bin" -m accelerate.commands.launch`: an
`accelerate` on PATH may belong to another environment), switches between the generated
ZeRO-2 and ZeRO-3 accelerate configs, and keeps the shipped scripts'
`--trainer.freeze_modules` value (text encoder and VAE frozen). CANN's set_env.sh is looked
for where CANN installs it (as root and per user) unless the environment shows it sourced;
none found stops the script with one line, since torch_npu cannot start without it. A
failed run names its log and CANN's (`~/ascend/log`, `ASCEND_GLOBAL_LOG_LEVEL`). Before
training it runs `migrate doctor` (when npu-migrator is installed on the host) and stops on
a blocking finding, since a wrong host otherwise fails minutes into the run; SKIP_DOCTOR=1
skips it.
"""

from __future__ import annotations

from migrator.contract.profile import StepInput
from migrator.core.model import FileResult
from target_dit4dit.generated import Generated, template

CODE = "DIT091"
PATH = "scripts/train_npu.sh"


def build(given: StepInput) -> list[Generated | FileResult]:
    del given
    note = "launch script for one Ascend node (bash scripts/train_npu.sh [--zero 2|3])"
    return [Generated(PATH, template("train_npu.sh"), CODE, note)]
