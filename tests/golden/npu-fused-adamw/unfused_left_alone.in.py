import torch


def optimizers(model, AdamW):
    plain = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=False)
    loop = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    other = AdamW(model.parameters(), fused=True)
    return plain, loop, other
