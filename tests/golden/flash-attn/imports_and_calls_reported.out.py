import torch
from flash_attn import flash_attn_func, flash_attn_varlen_func
from flash_attn.bert_padding import pad_input, unpad_input


def attention(q, k, v, causal=True):
    """Fused attention with flash_attn_func."""
    return flash_attn_func(q, k, v, causal=causal)


def varlen(q, k, v, cu_seqlens, max_len):
    return flash_attn_varlen_func(q, k, v, cu_seqlens, cu_seqlens, max_len, max_len)
