from transformers.utils import is_flash_attn_2_available

if is_flash_attn_2_available():
    from flash_attn import flash_attn_func
    from flash_attn.layers.rotary import apply_rotary_emb
else:
    flash_attn_func = None


def attend(q, k, v):
    q = apply_rotary_emb(q, cos, sin)
    return flash_attn_func(q, k, v, causal=True)


def attend_local(q, k, v):
    try:
        from flash_attn import flash_attn_varlen_func as varlen
    except ImportError:
        varlen = None
    if varlen is not None:
        return varlen(q, k, v, cu_seqlens, cu_seqlens, max_len, max_len)
    return None
