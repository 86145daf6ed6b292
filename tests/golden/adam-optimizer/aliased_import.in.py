import torch.optim as optim
from torch import optim as topt
from torch.optim import AdamW as AW
from torch.optim.adamw import AdamW


def build(params):
    a = AW(params, lr=3e-4)
    b = optim.Adam(params, 1e-3)
    c = topt.AdamW(params)
    d = AdamW(params,
              lr=1e-4)
    return a, b, c, d
