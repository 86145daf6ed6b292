"""CUDA shared libraries loaded with ctypes."""

from __future__ import annotations

import re

import libcst as cst

from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.contract.rule import Example
from migrator.contract.trigger import TokenPattern, Trigger
from migrator.contract.unsupported import UnsupportedConstruct, fill, reported

# Library names (as in "libcudart.so.12", "nvToolsExt64_1.dll") of the CUDA toolkit,
# NCCL and the NVIDIA driver.
_CUDA_LIBRARY = re.compile(
    r"(?:^|[/\\])(?:lib)?(cudart|cuda|nvToolsExt|nvtx3?\w*|nccl|cublas\w*|cudnn\w*|nvrtc|"
    r"nvidia-ml|nvml|cufft|curand|cusparse|cusolver)(?:[0-9_.]|$|\.so|\.dll)",
    re.IGNORECASE,
)
_RUNTIME = "use torch.{device} (synchronize, mem_get_info, streams) or AscendCL (libascendcl.so)"
_SUGGESTIONS = {
    "cudart": _RUNTIME,
    "cuda": _RUNTIME,
    "nvtoolsext": "use {profiler_markers}",
    "nccl": 'use torch.distributed with the "hccl" backend (libhccl.so underneath)',
    "nvidia-ml": "use {device_query} on the host, or torch.{device}.mem_get_info()",
    "nvml": "use {device_query} on the host, or torch.{device}.mem_get_info()",
}


# Calls that look a library file up by path before it is loaded (with ctypes, or handed
# to a binding class): reported when a literal argument is a CUDA library's file name.
_SEARCHES = (
    "glob.glob",
    "glob.iglob",
    "os.path.join",
    "os.path.exists",
    "os.path.isfile",
    "pathlib.Path",
    "pathlib.PurePath",
)
_LIBRARY_FILE = re.compile(r"\.so\b|\.so$|\.dll\b", re.IGNORECASE)


class CudaLibraryLoad(UnsupportedConstruct):
    """Report CUDA libraries loaded by hand: `ctypes.CDLL("libcudart.so")`,
    `ctypes.cdll.LoadLibrary("libnvToolsExt.so.1")`, `ctypes.CDLL("libnccl.so.2")`, and
    `ctypes.util.find_library("cudart")`.

    What it reports: each call of `ctypes.CDLL` / `PyDLL` / `cdll.LoadLibrary` /
    `util.find_library` (aliases included) whose first argument is a string literal naming
    a CUDA toolkit, NCCL or NVIDIA driver library (cudart, cuda, nvToolsExt, nccl, cublas,
    cudnn, nvrtc, nvidia-ml, cufft, curand, cusparse, cusolver). So is a search for such a
    library's file before it is bound: `glob.glob` / `glob.iglob`, `os.path.join`,
    `os.path.exists` / `isfile` and `pathlib.Path` given a literal file name of one
    (`glob.glob(os.path.join(nccl_dir, "lib", "libnccl.so*"))`, the way bindings find the
    library of the `nvidia-nccl-cu*` wheel). Other libraries, and names the code builds at
    run time, are left alone.

    Why: an Ascend host has none of these libraries, so loading them raises `OSError` (and
    `find_library` returns None); their functions (cudaMemGetInfo, nvtxRangePush,
    ncclAllReduce) have no binary-compatible NPU twin. The NPU's equivalents are reached
    through torch-npu: `torch.npu.*` for the runtime (or AscendCL, `libascendcl.so`, from C),
    `torch_npu.npu.mstx` for NVTX ranges, the "hccl" backend of torch.distributed for NCCL.

    Example: `lib = ctypes.CDLL("libcudart.so")` is reported, suggesting torch.npu or
    AscendCL; `ctypes.CDLL("libc.so.6")` is not; `glob.glob(os.path.join(d, "libnccl.so*"))`
    is reported, suggesting torch.distributed with the "hccl" backend (a hand-made NCCL
    binding needs an HCCL binding of `libhccl.so` in its place).

    Safety: reports only: the calls made through the library have to be ported one by one.

    Caveats: a library name held in a variable is not followed.
    """

    code = "NPU068"
    action = "replace-library"
    name = "cuda-library-load"
    summary = "Report ctypes loading of CUDA libraries (libcudart, libnvToolsExt, libnccl, ...)."
    # A library's file name ends in ".so" or ".dll" as _LIBRARY_FILE reads it (`x.sort()`
    # is no match).
    trigger = Trigger(
        tokens=("CDLL", "cdll", "PyDLL", "find_library", "LoadLibrary"),
        patterns=(TokenPattern(".so", r"\.so\b"), TokenPattern(".dll", r"\.dll\b")),
        local=True,
    )
    uses = ("ctypes.CDLL", "ctypes.PyDLL", "ctypes.cdll", "ctypes.util.find_library", *_SEARCHES)
    message = "a CUDA library, which {DEVICE} hosts do not have"
    suggestion = "use torch.{device} or AscendCL (libascendcl.so) instead"
    examples = (
        reported('import ctypes\ncudart = ctypes.CDLL("libcudart.so")\n'),
        reported('from ctypes import cdll\nnvtx = cdll.LoadLibrary("libnvToolsExt.so.1")\n'),
        Example('import ctypes\nlibc = ctypes.CDLL("libc.so.6")\n'),
        reported('import glob, os\nfound = glob.glob(os.path.join(d, "lib", "libnccl.so*"))\n'),
        Example('import os\npath = os.path.join(d, "libcuda_helpers.txt")\n'),
    )

    def _library(self, name: str, call: cst.Call | None) -> str | None:
        if call is None:
            return None
        if name in _SEARCHES:
            for each in call.args:
                text = string_value(each.value)
                match = _CUDA_LIBRARY.search(text) if text is not None else None
                if match is not None and text is not None and _LIBRARY_FILE.search(text):
                    return match.group(1)
            return None
        arg = find_arg(call, 0, "name")
        text = string_value(arg.value) if arg is not None else None
        match = _CUDA_LIBRARY.search(text) if text is not None else None
        return match.group(1) if match is not None else None

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        library = self._library(name, call)
        if library is None:
            return None
        self._last = library.lower()
        if name in _SEARCHES:
            return fill(f"looks for the file of lib{library}, {self.message}", self.target)
        return fill(f"lib{library} is {self.message}", self.target)

    def suggest(self, name: str) -> str:
        library = getattr(self, "_last", "")
        key = next((k for k in _SUGGESTIONS if library.startswith(k)), None)
        return fill(_SUGGESTIONS[key] if key else self.suggestion, self.target)
