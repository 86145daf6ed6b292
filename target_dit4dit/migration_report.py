"""The migration report written into the migrated checkout: `NPU_MIGRATION.md`.

It is built from the run's own results (this step runs last, so it sees the rules' edits
and the generated files): every edit, what needs review and why, the warnings, and the
next steps to train on an Ascend host with the generated files. It records the run that
migrated the checkout, so a later run that finds nothing new to do leaves it alone; one
that does, or one that finds it edited, keeps it and says so.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections.abc import Sequence
from pathlib import Path

from migrator import __version__
from migrator.contract.profile import StepInput
from migrator.core.model import FileResult, Kind, RunSummary, Status
from target_dit4dit import deepspeed_configs, launch_script, requirements_npu, robotwin_config
from target_dit4dit.generated import is_dit4dit, kept

CODE = "DIT094"
PATH = "NPU_MIGRATION.md"

GENERATED = (
    (deepspeed_configs.deepspeed_json(2), "DeepSpeed ZeRO-2 config: bf16 on, tuned buckets"),
    (deepspeed_configs.deepspeed_json(3), "DeepSpeed ZeRO-3 config: bf16 on, tuned buckets"),
    (deepspeed_configs.accelerate_yaml(2), "accelerate config for ZeRO-2 (no mixed_precision)"),
    (deepspeed_configs.accelerate_yaml(3), "accelerate config for ZeRO-3 (no mixed_precision)"),
    (launch_script.PATH, "launch script for one Ascend node"),
    (robotwin_config.PATH, "RoboTwin training config (16-step actions, 14-dim)"),
    (requirements_npu.PATH, "Python packages for the Ascend host"),
)

R = requirements_npu
NEXT_STEPS = f"""\
## Next steps to train on an Ascend host

### 1. Install

On an Atlas 800T A2/A3 host with the NPU driver and the CANN toolkit installed, from the
root of this checkout:

```sh
source /usr/local/Ascend/ascend-toolkit/set_env.sh
python3 -m venv .venv && . .venv/bin/activate
pip install -r {R.PATH}
pip install -e .
```

`{R.PATH}` pins torch {R.TORCH}, torch-npu {R.TORCH_NPU} and mx-driving {R.MX_DRIVING}
together (torch-npu is built for one torch version; mx-driving needs torch>=2.6,<2.9).
On x86_64 hosts install the CPU build of torch first (the file's header has the command).
decord has no aarch64 wheel: build it from source, or use `VIDEO_BACKEND=opencv` below.

### 2. Check the NPUs and the autocast dtypes

```sh
python -c "import torch, torch_npu; print(torch.npu.is_available(), torch.npu.device_count())"
python -c "import torch, torch_npu; print(torch.npu.get_amp_supported_dtype())"
```

The second line prints the dtypes autocast accepts on this host. If `torch.float32` is
not among them, the fp32 autocast regions around the action head (in `forward` and
`predict_action` of `DiT4DiT/model/framework/DiT4DiT.py`) are switched off with a
warning, and the action head runs in bf16: review those regions (they are listed above
when the run flagged them).

### 3. Weights and data

Download Cosmos-Predict2.5-2B in diffusers format (revision `diffusers/base/post-trained`)
and the RoboTwin LeRobot data, then point the run at them, either in
`{robotwin_config.PATH}` (`framework.cosmos25.base_model`, `datasets.vla_data.data_root_dir`)
or in the environment:

```sh
export BASE_MODEL=/path/to/Cosmos-Predict2.5-2B DATA_ROOT_DIR=/path/to/robotwin
```

### 4. Train

```sh
bash {launch_script.PATH}                  # ZeRO-2, one process per visible NPU
bash {launch_script.PATH} --zero 3         # ZeRO-3 (or ZERO_STAGE=3)
ASCEND_RT_VISIBLE_DEVICES=0,1,2,3 bash {launch_script.PATH} --num_processes 4
bash {launch_script.PATH} -- --trainer.max_train_steps 100   # train.py flags after --
```

Start with ZeRO-2: it changes the least. ZeRO-3 shards the parameters too, for larger
batches. The script refuses more processes than visible NPUs (HCCL allows one rank per
device), finds torch's and torch_npu's libraries for `LD_LIBRARY_PATH` from the active
Python at run time and runs accelerate with that same Python, sources CANN's `set_env.sh`
if that has not been done (and stops when it finds none), keeps the
text encoder and the VAE frozen (`--trainer.freeze_modules`, as the shipped scripts do),
and logs to `results/Checkpoints/<run id>/train_npu.log`; when a run fails it names
that log and CANN's (`~/ascend/log`; `ASCEND_GLOBAL_LOG_LEVEL=1` logs more). It sets,
unless the
environment already does:

| variable | value | why |
|---|---|---|
| `TASK_QUEUE_ENABLE` | `2` | the operator dispatch queue (level 2), not an HCCL setting |
| `PYTORCH_NPU_ALLOC_CONF` | `expandable_segments:True` | less memory lost to fragmentation |
| `CPU_AFFINITY_CONF` | `1` | binds each rank to the CPU cores near its NPU |
| `WANDB_MODE` | `offline` | training hosts rarely reach wandb; `wandb sync` later |

HCCL's own timeouts keep their defaults: upstream's `NCCL_TIMEOUT` and
`NCCL_SOCKET_TIMEOUT_MS` are not NCCL variables (they set nothing on CUDA either), so no
HCCL value is derived from them. Set `HCCL_CONNECT_TIMEOUT` / `HCCL_EXEC_TIMEOUT` in the
environment only if a run needs longer.

The ZeRO switch works only if `DiT4DiT/training/train.py` builds `DeepSpeedPlugin()`
without `hf_ds_config` (otherwise the JSON named there wins over the accelerate config):
`grep -n hf_ds_config DiT4DiT/training/train.py` should print nothing.

### 5. Smoke check before spending NPU hours

On any machine (no NPU needed) with npu-migrator and its `smoke` extra installed,
`migrate smoke .` trains the migrated checkout for a few steps on tiny random weights
and a tiny generated dataset, and says whether the run worked.
"""


def _generated_table(results: Sequence[FileResult]) -> list[str]:
    by_path = {result.path: result for result in results}
    lines = ["## Generated files", "", "| file | what it is | this run |", "|---|---|---|"]
    for path, what in GENERATED:
        result = by_path.get(path)
        if result is None:
            state = "not generated"
        elif result.status is Status.CREATED:
            state = "created"
        elif result.warnings:
            state = result.warnings[0].message
        else:
            state = "already there, unchanged"
        lines.append(f"| `{path}` | {what} | {state} |")
    return [*lines, ""]


# Edits that change what the loss and the evaluation count (a data/config mismatch fixed
# on the way), not the device port: listed on their own, for a person to judge first.
# DIT003 (action_mask_slice) and DIT004 (eval_action_alignment); those modules import this
# package's __init__, which imports this one, so the codes are spelled here (a test checks).
MATHS_CODES = ("DIT003", "DIT004")


def _maths_section(results: Sequence[FileResult]) -> list[str]:
    edits = [c for r in results for c in r.changes if c.code in MATHS_CODES]
    if not edits:
        return []
    return [
        "## Edits to the model's loss and eval maths (review first; not the device port)",
        "",
        "They fix a data/config mismatch that fails the same way on any device (16-step "
        "data, 8 predicted steps): where the data is longer than the prediction they change "
        "which steps the training loss and the evaluation error count. They are not listed "
        "in the tables below.",
        "",
        "| file | line | code | edit |",
        "|---|---|---|---|",
        *(f"| `{c.path}` | {c.line} | {c.code} | {_cell(c.message)} |" for c in edits),
        "",
    ]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _without_maths(result: FileResult) -> FileResult:
    findings = tuple(
        f for f in result.findings if not (f.kind is Kind.EDIT and f.code in MATHS_CODES)
    )
    if len(findings) == len(result.findings):
        return result
    return dataclasses.replace(result, findings=findings)


def render(results: Sequence[FileResult]) -> str:
    # Imported here: importing the profile (every run's `--profile auto`) never needs it.
    from migrator.output.report import counted, markdown_sections

    # The counts of the run that writes this file, this file included (as the run's last
    # line counts it).
    summary = counted(results, FileResult(PATH, Status.CREATED), ())
    # The device port's tables, without the maths edits listed apart above them.
    port = RunSummary()
    port.results.extend(_without_maths(result) for result in results)
    lines = [
        "# NPU migration of DiT4DiT",
        "",
        f"Written by npu-migrator {__version__} (profile `dit4dit`) when it migrated this "
        "checkout for Ascend NPUs (torch + torch_npu). It lists every edit, what needs a "
        "person's review and why, what could not be migrated, and the next steps. Later "
        "runs leave it as it is; delete it to get a fresh one.",
        "",
        f"**Summary:** {summary.line()} (counting this file, which the run created).",
        "",
        *_maths_section(results),
        *markdown_sections(port, ()),
        *_generated_table(results),
    ]
    return "\n".join(lines) + "\n" + NEXT_STEPS


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and not path.is_symlink() and path.read_bytes() == data
    except OSError:
        return False


def _news(results: Sequence[FileResult]) -> bool:
    """Whether the run changed anything (else the report of the run that did stays)."""
    return any(result.changes or result.status is not Status.UNCHANGED for result in results)


class MigrationReport:
    """The profile's last step: `NPU_MIGRATION.md` from the results of the whole run."""

    code = CODE
    name = "migration-report"
    summary = "Write NPU_MIGRATION.md: the run's edits, reviews and next steps."

    def explain(self) -> str:
        return inspect.cleandoc(__doc__ or "")

    def __call__(self, given: StepInput) -> list[FileResult]:
        if not is_dit4dit(given.root):
            return []
        data = render(given.results).encode("utf-8")
        full = Path(given.root, PATH)
        if not os.path.lexists(full):
            return [FileResult(PATH, Status.CREATED, new_data=data)]
        if _holds(full, data) or not _news(given.results):
            return [FileResult(PATH, Status.UNCHANGED)]
        return [kept(PATH, CODE, "exists (from an earlier run, or edited)")]
