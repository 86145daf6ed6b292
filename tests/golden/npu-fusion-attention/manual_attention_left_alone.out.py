import torch


def attend(q, k, v, scaled_dot_product_attention):
    weights = torch.softmax(q @ k.transpose(-2, -1), dim=-1)
    return weights @ v, scaled_dot_product_attention(q, k, v)
