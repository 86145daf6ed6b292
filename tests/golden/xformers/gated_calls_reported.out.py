try:
    import xformers.ops as xops

    XFORMERS_AVAILABLE = True
except ImportError:
    xops = None
    XFORMERS_AVAILABLE = False


def attend(q, k, v):
    if XFORMERS_AVAILABLE:
        return xops.memory_efficient_attention(q, k, v)
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)
