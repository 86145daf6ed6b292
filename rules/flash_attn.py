"""flash-attn imports and calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class FlashAttn(UnsupportedConstruct):
    """Report flash-attn: imports of `flash_attn` (and FlashAttention-3's
    `flash_attn_interface`) and every call into them.

    What it reports: `import flash_attn`, `from flash_attn import flash_attn_func`,
    `from flash_attn.bert_padding import pad_input`, and each call such as
    `flash_attn_func(q, k, v, causal=True)`, `flash_attn_varlen_func(...)` or
    `flash_attn.modules.mha.MHA(...)`, matched by qualified name (aliases included, a local
    name that shadows the import excluded). Optional imports (`try: ... except ImportError`,
    `if is_flash_attn_2_available():`) are not reported, but the calls through the names
    they bind are, with a fallback assignment in the `except` or `else` branch
    (`flash_attn_func = None`), in a module or inside a function: the code has a flash-attn
    path that a person has to replace; see `migrator.contract.unsupported`.

    Why: flash-attn is a package of CUDA kernels compiled against the CUDA toolkit; it has no
    Ascend build, so the import fails on an Ascend host (and `pip install flash-attn` fails
    there). The NPU's fused attention kernel is `torch_npu.npu_fusion_attention`, and
    `torch.nn.functional.scaled_dot_product_attention` runs on the NPU as it is.

    Example: `from flash_attn import flash_attn_func` and `out = flash_attn_func(q, k, v)`
    give two warnings (the import, the call); an `F.scaled_dot_product_attention` call gives
    none.

    Safety: reports only, never rewrites. `npu_fusion_attention` is not a drop-in
    replacement: it takes `head_num` and an `input_layout` that names the axes of q/k/v
    ("BNSD" is SDPA's [batch, heads, seq, dim]; flash-attn's [batch, seq, heads, dim] is
    "BSND"; "BSH" has heads and dim merged; "TND" is the varlen layout, with
    `actual_seq_qlen`/`actual_seq_kvlen` as cumulative lengths), expresses causal masking
    with `atten_mask` plus `sparse_mode`, takes `scale` and `keep_prob` (1 - dropout), and
    returns a tuple whose first item is the output (the others are softmax statistics for
    backward), not flash-attn's `(out, lse, ...)` order. Rotary embeddings from
    `flash_attn.layers.rotary` have the fused `torch_npu.npu_rotary_mul(x, cos, sin)`.

    Caveats: a call through a name that is bound both by the import and by an unrelated
    assignment (outside the fallback branch) does not resolve and is not reported.
    """

    code = "NPU050"
    action = "replace-library"
    name = "flash-attn"
    summary = "Report flash-attn imports and calls: CUDA-only kernels with no Ascend build."
    trigger = Trigger(tokens=("flash_attn",))
    modules = ("flash_attn", "flash_attn_interface")
    uses = ("flash_attn", "flash_attn_interface")
    message = "flash-attn is a CUDA-only kernel package with no {DEVICE} build"
    suggestion = (
        "use torch.nn.functional.scaled_dot_product_attention, which runs on the {DEVICE} "
        "(q/k/v as [batch, heads, seq, dim]: transpose flash-attn's [batch, seq, heads, dim]), "
        'or {fused_attention} with input_layout="BSND", which returns a tuple, output first'
    )
    suggestions: ClassVar[Mapping[str, str]] = {
        "flash_attn.layers.rotary": "use {rotary_mul}(x, cos, sin), the fused rotary embedding",
        "flash_attn.ops.triton.rotary": "use {rotary_mul}(x, cos, sin), the fused rotary embedding",
    }
    examples = (
        reported("from flash_attn import flash_attn_func\n"),
        reported("import flash_attn as fa\nout = fa.flash_attn_func(q, k, v, causal=True)\n"),
        Example(
            "import torch.nn.functional as F\n"
            "out = F.scaled_dot_product_attention(q, k, v, is_causal=True)\n"
        ),
        Example('print("flash_attn is not installed, using SDPA")\n'),
        Example(
            "try:\n    from flash_attn import flash_attn_func\n"
            "except ImportError:\n    flash_attn_func = None\n"
        ),
    )
