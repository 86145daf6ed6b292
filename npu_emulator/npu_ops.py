"""The torch_npu custom operators that libraries call on their own on an Ascend host.

diffusers computes ``RMSNorm`` with ``torch_npu.npu_rms_norm`` and ``GEGLU`` with
``torch_npu.npu_geglu`` whenever torch_npu is importable, and transformers/diffusers
import ``npu_fusion_attention`` for their NPU attention paths. These are written here
with PyTorch ops on npu tensors, following the documented semantics (outputs, dtypes,
mask conventions), so such models run and train under emulation. The NPU kernels'
numerics are not reproduced. Options outside the documented common cases raise
:class:`~npu_emulator.errors.NotEmulatedError`.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from npu_emulator.errors import not_emulated

_NO_LIMIT = 2147483647  # torch_npu's default pre_tockens / next_tockens


def npu_rms_norm(
    self: torch.Tensor, gamma: torch.Tensor, epsilon: float = 1e-6
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(y, rstd)``: y = x / rms(x) * gamma over gamma's trailing dims; rstd in fp32."""
    dims = tuple(range(-gamma.dim(), 0))
    x = self.float()
    rstd = torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + epsilon)
    return (x * rstd * gamma.float()).to(self.dtype), rstd


def npu_geglu(
    self: torch.Tensor, dim: int = -1, approximate: int = 1, activate_left: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(out, gelu)``: halves A, B of ``self`` along ``dim``; out = A * gelu(B).

    ``approximate`` 1 is the tanh form, 0 the exact one; ``activate_left`` applies the
    gelu to A instead.
    """
    first, second = self.chunk(2, dim=dim)
    gate, value = (first, second) if activate_left else (second, first)
    gelu = F.gelu(gate, approximate="tanh" if approximate == 1 else "none")
    return value * gelu, gelu


def _to_bnsd(t: torch.Tensor, layout: str, heads: int) -> torch.Tensor:
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return t.transpose(1, 2)
    if layout == "BSH":
        b, s, h = t.shape
        return t.view(b, s, heads, h // heads).transpose(1, 2)
    s, b, h = t.shape  # SBH
    return t.view(s, b, heads, h // heads).permute(1, 2, 0, 3)


def _from_bnsd(t: torch.Tensor, layout: str) -> torch.Tensor:
    if layout == "BNSD":
        return t
    if layout == "BSND":
        return t.transpose(1, 2)
    b, n, s, d = t.shape
    if layout == "BSH":
        return t.transpose(1, 2).reshape(b, s, n * d)
    return t.permute(2, 0, 1, 3).reshape(s, b, n * d)  # SBH


def _kv_heads(t: torch.Tensor, layout: str, head_dim: int) -> int:
    if layout in ("BSH", "SBH"):
        return t.shape[-1] // head_dim
    return t.shape[2] if layout == "BSND" else t.shape[1]


def _mask(
    atten_mask: torch.Tensor | None,
    sparse_mode: int,
    pre_tockens: int,
    next_tockens: int,
    q_len: int,
    kv_len: int,
    device: torch.device,
) -> torch.Tensor | None:
    """Positions to hide (True), broadcastable to (B, N, Sq, Skv)."""
    rows = torch.arange(q_len, device=device).unsqueeze(1)
    cols = torch.arange(kv_len, device=device).unsqueeze(0)
    if sparse_mode == 2:  # leftUpCausal: the mask passed is a compressed 2048x2048 one
        return cols > rows
    if sparse_mode == 3:  # rightDownCausal
        return cols > rows + (kv_len - q_len)
    hidden = None if atten_mask is None else atten_mask.to(torch.bool)
    if sparse_mode == 0 and (pre_tockens < q_len + kv_len or next_tockens < q_len + kv_len):
        band = (cols < rows - pre_tockens) | (cols > rows + next_tockens)
        hidden = band if hidden is None else hidden | band
    return hidden


def npu_fusion_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    head_num: int,
    input_layout: str,
    pse: torch.Tensor | None = None,
    padding_mask: torch.Tensor | None = None,
    atten_mask: torch.Tensor | None = None,
    scale: float = 1.0,
    keep_prob: float = 1.0,
    pre_tockens: int = _NO_LIMIT,
    next_tockens: int = _NO_LIMIT,
    inner_precise: int = 0,
    prefix: object = None,
    actual_seq_qlen: object = None,
    actual_seq_kvlen: object = None,
    sparse_mode: int = 0,
    gen_mask_parallel: bool = True,
    sync: bool = False,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, int, int, int]:
    """Attention as torch_npu computes it; returns (out, softmax_max, softmax_sum, ...).

    Emulated: layouts BSH, SBH, BSND, BNSD; grouped key/value heads; ``atten_mask`` with
    True (or 1) marking hidden positions; ``sparse_mode`` 0 (mask plus the
    pre/next-token band), 1 (mask only), 2 (top-left causal), 3 (bottom-right causal);
    ``scale``; dropout through ``keep_prob``. Not emulated: ``pse``, ``padding_mask``,
    prefixes, variable-length ("TND") inputs and the other sparse modes.
    """
    api = "torch_npu.npu_fusion_attention"
    if input_layout not in ("BSH", "SBH", "BSND", "BNSD"):
        not_emulated(f"{api} with input_layout={input_layout!r}")
    if sparse_mode not in (0, 1, 2, 3):
        not_emulated(f"{api} with sparse_mode={sparse_mode}")
    for name, arg in (
        ("pse", pse),
        ("padding_mask", padding_mask),
        ("prefix", prefix),
        ("actual_seq_qlen", actual_seq_qlen),
        ("actual_seq_kvlen", actual_seq_kvlen),
    ):
        if arg is not None:
            not_emulated(f"{api} with {name}")
    q = _to_bnsd(query, input_layout, head_num)
    head_dim = q.shape[-1]
    kv_heads = _kv_heads(key, input_layout, head_dim)
    k, v = _to_bnsd(key, input_layout, kv_heads), _to_bnsd(value, input_layout, kv_heads)
    if kv_heads != head_num:
        k = k.repeat_interleave(head_num // kv_heads, dim=1)
        v = v.repeat_interleave(head_num // kv_heads, dim=1)
    scores = torch.matmul(q.float(), k.float().transpose(-1, -2)) * scale
    hidden = _mask(
        atten_mask, sparse_mode, pre_tockens, next_tockens, q.shape[2], k.shape[2], q.device
    )
    if hidden is not None:
        scores = scores.masked_fill(hidden, -math.inf)
    row_max = scores.amax(dim=-1, keepdim=True)
    row_sum = torch.exp(scores - row_max).sum(dim=-1, keepdim=True)
    probs = torch.softmax(scores, dim=-1)
    if keep_prob < 1.0:
        probs = F.dropout(probs, p=1.0 - keep_prob)
    out = torch.matmul(probs.to(v.dtype), v)
    # torch_npu returns the softmax statistics repeated 8 times on the last axis.
    stats_shape = (*row_max.shape[:-1], 8)
    empty = torch.empty(0, device=q.device, dtype=q.dtype)
    return (
        _from_bnsd(out, input_layout),
        row_max.expand(stats_shape),
        row_sum.expand(stats_shape),
        empty,
        0,
        0,
        0,
    )
