"""C++/CUDA extensions built with `torch.utils.cpp_extension`."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported

_CUDA_SUFFIXES = (".cu", ".cuh")
_PREFIX = "torch.utils.cpp_extension."


def _names_cuda_source(node: cst.BaseExpression) -> bool:
    """A literal source path, or a list/tuple of them, with a CUDA suffix."""
    elements = node.elements if isinstance(node, (cst.List, cst.Tuple)) else None
    values = [e.value for e in elements] if elements is not None else [node]
    for value in values:
        text = string_value(value)
        if text is not None and text.endswith(_CUDA_SUFFIXES):
            return True
    return False


def _is_true(arg: cst.Arg | None) -> bool:
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "True"


def _is_given(arg: cst.Arg | None) -> bool:
    return arg is not None and not (isinstance(arg.value, cst.Name) and arg.value.value == "None")


class CudaExtension(UnsupportedConstruct):
    """Report C++ extensions that compile CUDA: `CUDAExtension(...)`, and `load(...)` /
    `load_inline(...)` given CUDA sources.

    What it reports (by qualified name, aliases included):

    - every `torch.utils.cpp_extension.CUDAExtension(...)` call (usually in `setup.py`);
    - `torch.utils.cpp_extension.load(name, sources=[...])` when a literal source ends in
      `.cu` or `.cuh`, or when it passes `with_cuda=True`;
    - `torch.utils.cpp_extension.load_inline(...)` when it passes `cuda_sources=` (not
      None) or `with_cuda=True`.

    `CppExtension`, `BuildExtension` and `load()` of C++-only sources are left alone: they
    build with the host compiler and work on an Ascend host (`BuildExtension` builds CUDA
    only for the `CUDAExtension`s it is given, which are reported). The `.cu` files
    themselves are reported by NPU056 (cuda-source).

    Why: these extensions compile CUDA C++ with nvcc and link the CUDA runtime; an Ascend
    host has neither, so the build fails, and the kernels would not run on the NPU anyway.
    The kernels must be replaced by PyTorch ops or rewritten as Ascend C operators; C++
    code that only needs torch can be built with torch-npu's `torch_npu.utils.cpp_extension`
    (`NpuExtension`, `load`).

    Example: `CUDAExtension("ops", ["ops.cpp", "kernel.cu"])` is reported;
    `CppExtension("ops", ["ops.cpp"])` is not.

    Safety: reports only, never rewrites.

    Caveats: `load(sources=SOURCES)` with the list in a variable is not reported (its
    suffixes are unknown statically); the `.cu` files are reported by NPU056 anyway.
    """

    code = "NPU055"
    action = "replace-library"
    name = "cuda-extension"
    summary = "Report CUDAExtension and cpp_extension.load/load_inline calls that compile CUDA."
    trigger = Trigger(tokens=("cpp_extension", "CUDAExtension"), local=True)
    uses = (_PREFIX + "CUDAExtension", _PREFIX + "load", _PREFIX + "load_inline")
    message = "compiles CUDA sources with nvcc, which {DEVICE} hosts do not have"
    suggestion = (
        "replace the kernels with PyTorch ops or {kernel_language}; C++-only code can use "
        "{cpp_extension}"
    )
    examples = (
        reported(
            "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
            'ext = CUDAExtension("ops", ["ops.cpp", "kernel.cu"])\n'
        ),
        reported(
            "import torch.utils.cpp_extension as cpp\n"
            'ops = cpp.load("ops", sources=["ops.cpp", "ops_kernel.cu"])\n'
        ),
        Example(
            "from torch.utils.cpp_extension import CppExtension, load\n"
            'ext = CppExtension("ops", ["ops.cpp"])\n'
            'ops = load("ops", sources=["ops.cpp"])\n'
        ),
    )

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        if call is None:
            return None
        if name.endswith(".load"):
            sources = find_arg(call, 1, "sources")
            cuda = sources is not None and _names_cuda_source(sources.value)
            if not cuda and not _is_true(find_arg(call, None, "with_cuda")):
                return None
        elif name.endswith(".load_inline"):
            cuda_sources = find_arg(call, 2, "cuda_sources")
            if not _is_given(cuda_sources) and not _is_true(find_arg(call, None, "with_cuda")):
                return None
        return super().describe(name, call)
