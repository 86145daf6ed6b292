"""NVTX profiler ranges and markers."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class Nvtx(UnsupportedConstruct):
    """Report NVTX ranges and markers: `torch.cuda.nvtx.*` and the `nvtx` package.

    What it reports: each call under `torch.cuda.nvtx` (`range_push`, `range_pop`,
    `range(...)`, `mark`), each import of it (`from torch.cuda import nvtx`), and for the
    standalone `nvtx` package each import, call (`nvtx.push_range(...)`) and decorated
    function (`@nvtx.annotate(...)`, one warning per function). Matching is by qualified
    name.

    Why: NVTX annotates timelines for NVIDIA's Nsight tools. On an Ascend host there is no
    NVTX library to load and no Nsight to read it; `torch.cuda.nvtx` calls fail without
    CUDA. The NPU's markers are torch-npu's `torch_npu.npu.mstx` (`mark`, `range_start`,
    `range_end`), which the torch_npu profiler (msprof_tx) collects.

    Example: `torch.cuda.nvtx.range_push("fwd")` and `torch.cuda.nvtx.range_pop()` give two
    warnings.

    Safety: reports only, never rewrites (`mstx.range_start` returns an id that
    `range_end` needs, unlike NVTX's push/pop stack).

    Caveats: `torch.autograd.profiler.emit_nvtx()` is not reported.
    """

    code = "NPU057"
    action = "port-code"
    name = "nvtx"
    summary = (
        "Report NVTX ranges and markers (torch.cuda.nvtx, the nvtx package) for the NPU's mstx."
    )
    trigger = Trigger(tokens=("nvtx",))
    modules = ("nvtx", "torch.cuda.nvtx")
    uses = ("nvtx", "torch.cuda.nvtx")
    message = "NVTX annotates timelines for NVIDIA Nsight and needs CUDA"
    suggestion = "use {profiler_markers}, or drop the markers"
    examples = (
        reported('import torch\ntorch.cuda.nvtx.range_push("forward")\n'),
        reported('import nvtx\n\n\n@nvtx.annotate("step", color="blue")\ndef step():\n    pass\n'),
        Example('import torch\nwith torch.profiler.record_function("forward"):\n    pass\n'),
        Example('print("nvtx ranges off")\n'),
    )
