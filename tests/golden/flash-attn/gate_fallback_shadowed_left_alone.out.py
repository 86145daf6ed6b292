if is_flash_attn_2_available():
    from flash_attn import flash_attn_func
else:
    from .sdpa import flash_attn_func


def attend(q, k, v):
    return flash_attn_func(q, k, v, causal=True)


def attend_local(q, k, v):
    try:
        from flash_attn import flash_attn_func as fa
    except ImportError:
        fa = None
    fa = make_sdpa_attention()
    return fa(q, k, v)
