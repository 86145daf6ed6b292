"""Liger Kernel imports and calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class LigerKernel(UnsupportedConstruct):
    """Report Liger Kernel: imports of `liger_kernel` and every call into it
    (`apply_liger_kernel_to_llama()`, `LigerRMSNorm(...)`, `LigerFusedLinearCrossEntropyLoss()`,
    `AutoLigerKernelForCausalLM.from_pretrained(...)`).

    What it reports: the imports and each call through them, by qualified name. Optional
    imports are not reported; calls through the names they bind are.

    Why: Liger's kernels are Triton kernels compiled for CUDA (and ROCm) GPUs; the triton
    wheel has no Ascend backend (see NPU051), so patching a model with them fails or falls
    back on an Ascend host.

    Example: `from liger_kernel.transformers import apply_liger_kernel_to_llama` and
    `apply_liger_kernel_to_llama()` give two warnings.

    Safety: reports only. Suggested replacement: keep the model's own torch modules (drop
    the patch call), use `torch.nn.RMSNorm` or the fused `torch_npu.npu_rms_norm`, and
    `torch_npu.npu_rotary_mul` for rotary embeddings; a plain `torch.nn.CrossEntropyLoss`
    for the fused linear cross-entropy (it needs more memory).

    Caveats: transformers' `TrainingArguments(use_liger_kernel=True)` (`--use_liger_kernel`)
    loads Liger by itself and is not reported here.
    """

    code = "NPU065"
    action = "replace-library"
    name = "liger-kernel"
    summary = "Report Liger Kernel imports and patches: Triton kernels for CUDA GPUs."
    trigger = Trigger(tokens=("liger_kernel",))
    modules = ("liger_kernel",)
    uses = ("liger_kernel",)
    message = (
        "Liger Kernel is Triton kernels for CUDA GPUs; the triton wheel has no {DEVICE} backend"
    )
    suggestion = (
        "drop the patch and keep the model's torch modules; for speed use {rms_norm} "
        "(RMSNorm) and {rotary_mul} (rotary embeddings)"
    )
    suggestions: ClassVar[Mapping[str, str]] = {
        "liger_kernel.transformers.LigerRMSNorm": "use torch.nn.RMSNorm or {rms_norm}",
        "liger_kernel.transformers.LigerFusedLinearCrossEntropyLoss": (
            "use torch.nn.CrossEntropyLoss on the logits (more memory)"
        ),
        "liger_kernel.transformers.LigerCrossEntropyLoss": "use torch.nn.CrossEntropyLoss",
    }
    examples = (
        reported(
            "from liger_kernel.transformers import apply_liger_kernel_to_llama\n"
            "apply_liger_kernel_to_llama()\n"
        ),
        Example("import torch\nnorm = torch.nn.RMSNorm(4096)\n"),
    )
