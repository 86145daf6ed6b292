import torch

optimizer = dict(type='AdamW', lr=2e-4)


def build(params):
    settings = dict(type='AdamW', lr=1e-3)
    return torch.optim.AdamW(params, lr=settings['lr'])
