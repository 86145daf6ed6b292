"""Suggestion: torch_npu.npu_fusion_attention for scaled_dot_product_attention calls."""

from __future__ import annotations

from migrator.analysis.ast_lines import calls_or_imports
from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class NpuFusionAttention(UnsupportedConstruct):
    """Suggest, as a note, `torch_npu.npu_fusion_attention` at
    `torch.nn.functional.scaled_dot_product_attention(...)` calls.

    What it reports: each SDPA call (aliases included: `F.scaled_dot_product_attention`,
    `from torch.nn.functional import scaled_dot_product_attention as sdpa`).

    Why: SDPA runs on the NPU as it is (it is the replacement NPU050/NPU052 suggest for
    flash-attn and xFormers); hand ports that tuned attention called the NPU's fused
    kernel directly. Its interface differs: `torch_npu.npu_fusion_attention(q, k, v,
    head_num, input_layout, atten_mask=None, scale=1.0, keep_prob=1.0, sparse_mode=0, ...)`
    takes the number of heads and a layout string for q/k/v ("BNSD" is SDPA's [batch,
    heads, seq, dim]; "BSND", "BSH" and "TND" the others), expresses causal attention with a
    boolean `atten_mask` (True = masked) plus `sparse_mode`, takes `keep_prob` (1 - dropout)
    instead of `dropout_p`, and returns a tuple whose first item is the output.

    Example: `F.scaled_dot_product_attention(q, k, v, is_causal=True)` gets the note.

    Safety: a suggestion, never an edit (suggestions are NPU090-NPU099; `--ignore NPU09`
    drops them). Measure before switching: it pays off for long sequences.

    Caveats: `scale` defaults to 1.0 there, not to 1/sqrt(dim) as in SDPA: pass it.
    """

    code = "NPU093"
    action = "suggestion"
    name = "npu-fusion-attention"
    summary = "Suggest torch_npu.npu_fusion_attention at SDPA calls (layout, mask, outputs differ)."
    trigger = Trigger(
        tokens=("scaled_dot_product_attention",),
        words=True,
        statement_gate=calls_or_imports,
        local=True,
        elements=True,
    )
    uses = ("torch.nn.functional.scaled_dot_product_attention",)
    message = "suggestion: the {DEVICE} has a fused attention kernel for this"
    suggestion = (
        '{fused_attention}(q, k, v, head_num, "BNSD", atten_mask=..., scale=1/sqrt(d))[0]: '
        "a boolean mask (True = masked) plus sparse_mode for causal, keep_prob = 1 - dropout"
    )
    examples = (
        reported(
            "import torch.nn.functional as F\nout = F.scaled_dot_product_attention(q, k, v)\n"
        ),
        Example("out = torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v\n"),
    )
