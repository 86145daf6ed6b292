import torch.nn.functional as F
from torch.nn.functional import scaled_dot_product_attention as sdpa


def attend(q, k, v, mask):
    causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    masked = sdpa(q, k, v, attn_mask=mask)
    return causal, masked
