"""NATTEN (neighborhood attention) imports and calls."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class Natten(UnsupportedConstruct):
    """Report NATTEN: imports of `natten` and every call into it
    (`natten.functional.na2d(...)`, `NeighborhoodAttention2D(...)`, `na2d_qk`/`na2d_av`).

    What it reports: `import natten`, `from natten import NeighborhoodAttention2D`,
    `from natten.functional import na2d`, and each call through those names, by qualified
    name. Optional imports are not reported; calls through the names they bind are.

    Why: NATTEN's neighborhood-attention kernels are CUDA (and CUTLASS) builds for NVIDIA
    GPUs, with a slow CPU reference path at most; there is no Ascend build.

    Example: `from natten import NeighborhoodAttention2D` and
    `NeighborhoodAttention2D(dim=64, num_heads=4, kernel_size=7)` give two warnings.

    Safety: reports only. Suggested replacement: express the neighbourhood as an attention
    mask (or with `Tensor.unfold` windows) and use
    `torch.nn.functional.scaled_dot_product_attention` (or `torch_npu.npu_fusion_attention`
    with `atten_mask`); both run on the NPU, at the cost of memory for large windows.

    Caveats: NATTEN's dilation and causal options have to be rebuilt into the mask.
    """

    code = "NPU064"
    action = "replace-library"
    name = "natten"
    summary = "Report NATTEN neighborhood-attention imports and calls: CUDA-only kernels."
    trigger = Trigger(tokens=("natten",))
    modules = ("natten",)
    uses = ("natten",)
    message = "NATTEN's neighborhood-attention kernels are CUDA builds with no {DEVICE} build"
    suggestion = (
        "express the neighbourhood as an attention mask (or Tensor.unfold windows) and use "
        "torch.nn.functional.scaled_dot_product_attention or {fused_attention} with atten_mask"
    )
    examples = (
        reported("from natten.functional import na2d\nout = na2d(q, k, v, kernel_size=7)\n"),
        Example("import torch.nn.functional as F\nout = F.scaled_dot_product_attention(q, k, v)\n"),
    )
