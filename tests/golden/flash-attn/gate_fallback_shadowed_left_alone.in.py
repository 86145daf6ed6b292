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


def lazy_imports(implementation):
    is_fa2 = is_flash_attn_2_available()
    if implementation == "flash_attention_2" and is_fa2:
        from flash_attn import flash_attn_func
    elif is_torch_npu_available():
        from .npu_flash_attention import npu_flash_attn_func as flash_attn_func
    return flash_attn_func
