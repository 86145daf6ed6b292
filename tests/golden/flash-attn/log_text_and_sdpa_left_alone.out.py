import torch.nn.functional as F

from .utils import is_flash_attn_available


def attention(q, k, v):
    """Uses SDPA; flash_attn is not needed."""
    if is_flash_attn_available():
        print("flash_attn found, but SDPA is used")  # flash_attn_func is faster on CUDA
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)
