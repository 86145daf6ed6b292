import torch.optim as optim
from torch import optim as topt
from torch.optim import AdamW as AW
from torch.optim.adamw import AdamW


def build(params):
    a = AW(params, lr=3e-4, fused=True)
    b = optim.Adam(params, 1e-3, fused=True)
    c = topt.AdamW(params, fused=True)
    d = AdamW(params,
              lr=1e-4,
              fused=True)
    return a, b, c, d
