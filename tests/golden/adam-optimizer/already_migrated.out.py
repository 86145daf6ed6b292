import torch


def build(params):
    return torch.optim.AdamW(params, lr=1e-4, fused=True)
