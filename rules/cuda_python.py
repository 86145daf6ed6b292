"""cuda-python (NVIDIA's CUDA bindings) imports and calls."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger, imports_module
from migrator.contract.unsupported import UnsupportedConstruct, reported


class CudaPython(UnsupportedConstruct):
    """Report cuda-python, NVIDIA's Python bindings of the CUDA driver and runtime:
    `from cuda import cuda, cudart, nvrtc`, `from cuda.bindings import runtime`,
    `import cuda.core`, and every call through them.

    What it reports: the imports and calls such as `cudart.cudaMemGetInfo()`,
    `cuda.cuInit(0)`, `nvrtc.nvrtcCreateProgram(...)`, by qualified name (the top-level
    package is `cuda`; `torch.cuda` and `numba.cuda` are other names and are not matched).
    Optional imports are not reported; calls through the names they bind are.

    Why: the bindings call libcuda/libcudart, which an Ascend host does not have; importing
    `cuda.bindings` or calling through it fails there.

    Example: `from cuda import cudart` and `cudart.cudaMemGetInfo()` give two warnings.

    Safety: reports only. Suggested replacement: `torch.npu` for what PyTorch exposes
    (`torch.npu.mem_get_info()`, streams, events, synchronize), AscendCL's Python API
    (`acl`, shipped with CANN) for the rest; runtime-compiled kernels (nvrtc) have to be
    rewritten as Ascend C operators.

    Caveats: a project's own top-level package named `cuda` is reported too.
    """

    code = "NPU069"
    action = "replace-library"
    name = "cuda-python"
    summary = "Report cuda-python bindings (from cuda import cudart): CUDA driver/runtime calls."
    trigger = Trigger(tokens=("cuda",), words=True, needs=(imports_module("cuda"),))
    modules = ("cuda",)
    uses = ("cuda",)
    message = "cuda-python calls the CUDA driver and runtime, absent on {DEVICE} hosts"
    suggestion = (
        "use torch.{device} (mem_get_info, streams, events, synchronize) or AscendCL's "
        "Python API (acl, from CANN)"
    )
    examples = (
        reported("from cuda import cudart\nerr, free, total = cudart.cudaMemGetInfo()\n"),
        Example("import torch\nfree, total = torch.cuda.mem_get_info()\n"),
        Example("from numba import cuda\n\n\n@cuda.jit\ndef kernel(x):\n    pass\n"),
    )
