"""CuPy imports and CUDA kernels written with CuPy."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class Cupy(UnsupportedConstruct):
    """Report CuPy: imports of `cupy` / `cupyx`, CuPy's CUDA kernels and its CUDA runtime
    calls.

    What it reports: each import statement of `cupy` or `cupyx` (`import cupy as cp`), and
    calls that embed or drive CUDA directly: `cp.RawKernel(...)`, `cp.RawModule(...)`,
    `cp.ElementwiseKernel(...)`, `cp.ReductionKernel(...)`, `cupyx.jit.rawkernel(...)` and
    anything under `cupy.cuda` (`cp.cuda.Device(0).use()`, streams, runtime calls).
    Array calls (`cp.asarray`, `cp.zeros`, ...) are not reported one by one: the import
    already marks the module, and a module written against CuPy is ported as a whole.

    Why: CuPy runs on CUDA (and ROCm) GPUs only; its wheels are per-CUDA-version builds
    (`cupy-cuda12x`) and it cannot allocate on an Ascend NPU. Array code moves to torch
    tensors on the NPU (or NumPy on the host); CUDA C kernels in strings must be rewritten.

    Example: `import cupy as cp` gives one warning, `cp.RawKernel(src, "scale")` another;
    `cp.asarray(x)` gives none of its own.

    Safety: reports only, never rewrites.

    Caveats: an optional import (`try: import cupy except ImportError:`) is not reported.
    """

    code = "NPU054"
    action = "replace-library"
    name = "cupy"
    summary = "Report CuPy imports and CuPy CUDA kernels: CuPy runs on CUDA/ROCm GPUs only."
    trigger = Trigger(tokens=("cupy",))
    modules = ("cupy", "cupyx")
    uses = (
        "cupy.RawKernel",
        "cupy.RawModule",
        "cupy.ElementwiseKernel",
        "cupy.ReductionKernel",
        "cupy.cuda",
        "cupyx.jit.rawkernel",
    )
    message = "CuPy runs on CUDA and ROCm GPUs only; it cannot allocate on the {DEVICE}"
    suggestion = (
        'use torch tensors on the {DEVICE}, torch.from_numpy(a).to("{device}"), or NumPy on '
        "the host; CUDA C kernels need a rewrite"
    )
    examples = (
        reported("import cupy as cp\n"),
        reported('import cupy as cp\nkernel = cp.RawKernel(source, "scale")\ny = cp.asarray(x)\n'),
        Example("import numpy as np\ny = np.asarray(x)\n"),
        Example('print("cupy not found, using numpy")\n'),
    )
