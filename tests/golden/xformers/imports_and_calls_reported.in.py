import xformers.ops as xops


def attention(q, k, v, seqlens):
    bias = xops.fmha.BlockDiagonalMask.from_seqlens(seqlens)
    return xops.memory_efficient_attention(q, k, v, attn_bias=bias)
