"""xFormers imports and calls."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class Xformers(UnsupportedConstruct):
    """Report xFormers: imports of `xformers` and every call into it.

    What it reports: `import xformers.ops as xops`, `from xformers.ops import
    memory_efficient_attention`, and each call such as
    `xops.memory_efficient_attention(q, k, v, attn_bias=...)` or
    `xops.fmha.BlockDiagonalMask.from_seqlens(...)`, by qualified name. Optional imports are
    not reported.

    Why: xFormers' attention and fused operators are CUDA kernels; its wheels are CUDA
    builds and nothing in it dispatches to an Ascend NPU, so the import or the first call
    fails there. `torch.nn.functional.scaled_dot_product_attention` runs on the NPU, and
    `torch_npu.npu_fusion_attention` is its fused attention kernel.

    Example: `import xformers.ops as xops` and `xops.memory_efficient_attention(q, k, v)`
    give two warnings; `F.scaled_dot_product_attention(q, k, v)` gives none.

    Safety: reports only. xFormers takes `[batch, seq, heads, dim]` tensors and SDPA takes
    `[batch, heads, seq, dim]`: a replacement transposes, and attention biases (block
    diagonal masks) become explicit masks.

    Caveats: library methods that switch xFormers on (diffusers'
    `pipe.enable_xformers_memory_efficient_attention()`) are calls on an object whose type is
    unknown statically and are not reported.
    """

    code = "NPU052"
    action = "replace-library"
    name = "xformers"
    summary = "Report xFormers imports and calls: CUDA kernels with no Ascend build."
    trigger = Trigger(tokens=("xformers",))
    modules = ("xformers",)
    uses = ("xformers",)
    message = "xFormers ships CUDA kernels only; it has no {DEVICE} build"
    suggestion = (
        "use torch.nn.functional.scaled_dot_product_attention, whose layout is [B, H, S, D], "
        "or {fused_attention}"
    )
    examples = (
        reported("import xformers.ops as xops\nout = xops.memory_efficient_attention(q, k, v)\n"),
        Example("import torch.nn.functional as F\nout = F.scaled_dot_product_attention(q, k, v)\n"),
        Example('logger.info("xformers is not available")\n'),
    )
