"""CUDA-only GEMM kernel packages: grouped_gemm and DeepGEMM."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class CudaGemmLibrary(UnsupportedConstruct):
    """Report CUDA-only GEMM kernel packages: `grouped_gemm` (CUTLASS grouped GEMMs for
    mixture-of-experts layers) and `deep_gemm` (DeepGEMM's FP8 GEMMs), each import and call.

    What it reports: `from grouped_gemm import backend`, `import deep_gemm`, and calls
    through them (`backend.gmm(a, b, batch_sizes, trans_b)`,
    `deep_gemm.m_grouped_gemm_fp8_fp8_bf16_nt_contiguous(...)`), by qualified name.
    Optional imports (`try: from grouped_gemm import backend` / `except ImportError`) are
    not reported; calls through the names they bind are: that is the code path a person
    has to replace.

    Why: both packages are CUDA C++ extensions (CUTLASS, and DeepGEMM's JIT-compiled
    kernels for Hopper GPUs); an Ascend host can neither build nor run them. torch-npu has
    its own grouped matmul kernel, `torch_npu.npu_grouped_matmul` (a custom op in every
    torch-npu release of the data, 2.6.0 to 2.14.0), which takes lists of tensors or one
    tensor with group sizes.

    Example: `from grouped_gemm import backend` and `backend.gmm(x, w, sizes, trans_b)`
    give two warnings suggesting `torch_npu.npu_grouped_matmul`.

    Safety: reports only: the NPU op takes another argument layout (group lists, split
    item), and FP8 GEMMs have no one-to-one NPU counterpart.

    Caveats: `torch._grouped_mm` (torch's own, newer than torch 2.7.1) is NPU078's.
    """

    code = "NPU083"
    action = "replace-library"
    name = "cuda-gemm-library"
    summary = "Report grouped_gemm / DeepGEMM: CUDA GEMM kernels (npu_grouped_matmul instead)."
    trigger = Trigger(tokens=("grouped_gemm", "deep_gemm"))
    modules = ("grouped_gemm", "deep_gemm")
    uses = modules
    message = "a CUDA-only GEMM kernel package, with no {DEVICE} build"
    suggestion = (
        "use {grouped_matmul} (check its group-list layout), or a loop of "
        "torch.matmul over the groups"
    )
    suggestions: ClassVar[Mapping[str, str]] = {
        "deep_gemm": (
            "use {grouped_matmul} on bf16 inputs (no FP8 one-to-one), or "
            "torch.matmul over the groups"
        ),
    }
    examples = (
        reported("from grouped_gemm import backend\nout = backend.gmm(x, w, sizes, False)\n"),
        Example(
            "try:\n    from grouped_gemm import backend\nexcept ImportError:\n    backend = None\n"
        ),
        Example("def grouped_gemm(a, b):\n    return a @ b\nout = grouped_gemm(x, w)\n"),
    )
