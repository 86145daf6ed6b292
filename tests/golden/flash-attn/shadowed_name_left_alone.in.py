import flash_attn


def attention(q, k, v, flash_attn=None):
    # The parameter shadows the module: its call is not flash-attn's.
    return flash_attn.flash_attn_func(q, k, v)


def local(q):
    flash_attn_func = make_kernel()
    return flash_attn_func(q, q, q)
