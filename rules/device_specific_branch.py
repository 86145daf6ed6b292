"""Code that already handles the NPU, or keeps CUDA-only work on CUDA: left alone, reported."""

from __future__ import annotations

import libcst as cst

from migrator.analysis import device_regions
from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import RegionView, Trigger
from migrator.contract.unsupported import reported
from migrator.core.model import FixAvailability


def _may_leave_alone(region: RegionView) -> bool:
    return device_regions.may_leave_alone(
        region.statements, region.names, region.target, region.text
    )


class DeviceSpecificBranch(PythonRule):
    """Report the device-specific code every device rule leaves alone.

    What it reports: each `if`/`elif` chain or `assert` that the device rules skip (they
    all ask `migrator.analysis.device_regions`), when it names CUDA or NCCL at all:

    - a chain that already has a branch for the NPU: `if is_torch_npu_available(): ...
      else: torch.cuda...`, `if torch.npu.is_available()`, `hasattr(torch, "npu")`,
      `device.type == "npu"`, `backend == 'nccl'` ... `elif backend == 'hccl'`,
      `device_name() == 'cuda'` ... `elif device_name() == 'npu'`;
    - a guard that keeps a CUDA-only feature on CUDA: `assert device_name() == 'cuda', 'GDS
      currently only supported for CUDA'`, `if q.device.type != "cuda": raise ...`, an `if`
      whose comment says the feature is only for NVIDIA GPUs;
    - a CUDA test (`torch.cuda.is_available()`, `torch.version.cuda`, `device == "cuda"`)
      around CUDA-only work: building a `CUDAExtension`, `.cu` sources, importing a CUDA-only
      package (flash_attn, triton, apex, pynvml, ...) or a module named for CUDA.

    Why: rewriting the CUDA test of a chain that already has an NPU branch makes that branch
    unreachable and sends the NPU down the CUDA path (DeepSpeed's 1-bit optimizers then build
    an NCCL backend); turning a CUDA-only guard into an NPU one enables CUDA-only code on the
    NPU. Code that already handles the NPU works as it is.

    Example: `if is_torch_npu_available():\\n    x = x.npu()\\nelse:\\n    x = x.cuda()` is
    left as it is, with a warning on its `if` line.

    Safety: reports only, never rewrites. Caveat: a chain is recognised by its tests, so a
    CUDA arm of it that does need a change (rare) must be edited by hand.
    """

    code = "NPU077"
    action = "review"
    name = "device-specific-branch"
    summary = "Report code left alone because it already handles the NPU or is CUDA-only."
    fix_availability = FixAvailability.NEVER
    # A region without an `if`/`assert` that may be such code cannot hold a report.
    # `local`: it reports a chain or assert that spells the source device or backend
    # (`device_regions.mentions_source`: a name's `_`-separated word, or a string, in any
    # case), decided from that statement, so a statement that spells neither in any of the
    # tokens' cases ("Cuda" too) has nothing for it.
    trigger = Trigger(
        tokens=("cuda", "nccl", "CUDA", "NCCL", "Cuda", "Nccl"),
        region=_may_leave_alone,
        local=True,
    )
    examples = (
        reported("if is_torch_npu_available():\n    x = x.npu()\nelse:\n    x = x.cuda()\n"),
        reported(
            "assert get_accelerator().device_name() == 'cuda', 'GDS only supported for CUDA'\n"
        ),
        Example('if device == "cuda":\n    x = x.cuda()\n'),
    )

    def left_alone(self, node: cst.CSTNode, region: device_regions.Region) -> None:
        if not device_regions.mentions_source(node, self.target):
            return
        what = "this if/elif chain" if isinstance(node, cst.If) else "this assert"
        kind = region.kind.value.replace("NPU", self.target.name.upper())
        self.warn(
            node,
            f"{what} {kind} ({region.why}): left as it is",
            "check by hand that the NPU takes the branch meant for it",
        )
