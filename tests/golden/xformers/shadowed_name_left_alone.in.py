import xformers.ops


def attention(q, k, v, xformers):
    return xformers.ops.memory_efficient_attention(q, k, v)
