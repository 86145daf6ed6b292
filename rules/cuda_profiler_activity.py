"""Profiling CUDA activity with torch.profiler."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, fill, reported

_CUDA_ACTIVITIES = frozenset(
    {
        "torch.profiler.ProfilerActivity.CUDA",
        "torch.autograd.ProfilerActivity.CUDA",
        "torch._C._profiler.ProfilerActivity.CUDA",
    }
)
_OLD_PROFILERS = frozenset({"torch.autograd.profiler.profile", "torch.autograd.profile"})


class CudaProfilerActivity(UnsupportedConstruct):
    """Report profiling of CUDA activity: `torch.profiler.ProfilerActivity.CUDA` and
    `torch.autograd.profiler.profile(use_cuda=True)` (or `use_device="cuda"`).

    What it reports: each reference to `ProfilerActivity.CUDA` (in an `activities=[...]`
    list or anywhere else), matched by qualified name, and each legacy autograd profiler
    call that asks for CUDA timing. `ProfilerActivity.CPU` and profilers that name no CUDA
    activity are left alone.

    Why: the CUDA activity is recorded through CUPTI, which an Ascend host does not have;
    NPU kernels are profiled by torch_npu's own profiler, `torch_npu.profiler.profile`,
    with `activities=[torch_npu.profiler.ProfilerActivity.CPU,
    torch_npu.profiler.ProfilerActivity.NPU]`, `torch_npu.profiler.schedule(...)` and
    `torch_npu.profiler.tensorboard_trace_handler(dir)` (read with MindStudio Insight or
    TensorBoard's torch-tb-profiler-ascend plugin).

    Example: `activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]` gives one warning.

    Safety: reports only: torch_npu's profiler takes its own `experimental_config`, and its
    trace files differ from CUPTI's.

    Caveats: `torch.cuda.memory_summary` and the other `torch.cuda` memory APIs are
    NPU012's (torch-cuda-api): rewritten to `torch.npu.*` where torch_npu has them.
    """

    code = "NPU071"
    action = "port-code"
    name = "cuda-profiler-activity"
    summary = "Report ProfilerActivity.CUDA and use_cuda profilers (torch_npu.profiler instead)."
    trigger = Trigger(tokens=("ProfilerActivity", "use_cuda", "use_device"), local=True)
    uses = tuple(_OLD_PROFILERS)
    message = "CUDA activity is recorded through CUPTI, which {DEVICE} hosts do not have"
    suggestion = (
        "profile with {profiler}.profile(activities=[{profiler}.ProfilerActivity.CPU, "
        "{profiler}.ProfilerActivity.NPU]) and {profiler}.tensorboard_trace_handler"
    )
    examples = (
        reported(
            "from torch.profiler import ProfilerActivity, profile\n"
            "with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:\n"
            "    step()\n"
        ),
        Example(
            "from torch.profiler import ProfilerActivity, profile\n"
            "with profile(activities=[ProfilerActivity.CPU]) as prof:\n    step()\n"
        ),
    )

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        if call is None:
            return None
        use_cuda = find_arg(call, None, "use_cuda")
        if use_cuda is not None and not (
            isinstance(use_cuda.value, cst.Name) and use_cuda.value.value == "False"
        ):
            return super().describe(name, call)
        device = find_arg(call, None, "use_device")
        wanted = string_value(device.value) if device is not None else None
        if wanted is not None and wanted.startswith("cuda"):
            return super().describe(name, call)
        return None

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "CUDA" and self.qualname(node) in _CUDA_ACTIVITIES:
            self.warn(
                node,
                f"ProfilerActivity.CUDA: {fill(self.message, self.target)}",
                fill(self.suggestion, self.target),
            )
