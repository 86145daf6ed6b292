import torch
from torch.optim import Adam


def optimizers(model):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01, fused=True)
    head = Adam(model.head.parameters(), lr=1e-3, fused=True)
    return opt, head
