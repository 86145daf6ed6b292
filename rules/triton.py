"""Triton kernels: imports and `@triton.jit` kernels."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class Triton(UnsupportedConstruct):
    """Report Triton: each `import triton...` statement and each Triton kernel.

    What it reports: every import of `triton` or a submodule (`import triton.language as tl`
    is its own statement, so its own warning), and each function decorated with
    `@triton.jit`, `@triton.autotune(...)` or `@triton.heuristics(...)`, once per function
    however many of those decorators it has. Uses inside a kernel (`tl.load`, `tl.store`,
    `triton.cdiv`, `triton.Config(...)` in an autotune list) are not reported again: the
    kernel as a whole is the site to port. A plain call `triton.jit(fn)` is reported too.

    Why: the `triton` wheel compiles kernels for NVIDIA (and AMD) GPUs only; on an Ascend
    host it has no backend, and `torch_npu.contrib.transfer_to_npu` even reports Triton as
    absent. Kernels must be rewritten with PyTorch ops or ported to triton-ascend, a
    separate package whose kernels usually need changes (block sizes, unsupported ops).

    Example: `import triton`, `import triton.language as tl` and one `@triton.jit` kernel
    give three warnings; the `tl.*` calls inside the kernel give none.

    Safety: reports only, never rewrites.

    Caveats: kernels launched from another module (`kernel[grid](...)`) are reported where
    they are defined, not where they are launched; an optional import
    (`try: import triton except ImportError:`) is not reported.
    """

    code = "NPU051"
    action = "replace-library"
    name = "triton"
    summary = (
        "Report Triton imports and @triton.jit kernels: the triton wheel has no Ascend backend."
    )
    trigger = Trigger(tokens=("triton",), words=True)
    modules = ("triton",)
    uses = ("triton.jit", "triton.autotune", "triton.heuristics")
    message = (
        "Triton compiles for CUDA (and ROCm) GPUs only; the triton wheel has no {DEVICE} backend"
    )
    suggestion = "rewrite the kernel with PyTorch ops, or port it to {triton_port}"
    examples = (
        reported("import triton\n"),
        reported(
            "import triton.language as tl\nfrom triton import jit\n\n\n"
            "@jit\ndef add_kernel(x_ptr, n, BLOCK: tl.constexpr):\n"
            "    pid = tl.program_id(0)\n"
        ),
        Example("import torch\ny = torch.add(x, 1)\n"),
        Example('print("triton kernels are disabled")\n'),
    )
