import torch as th
from torch import autocast as ac
from torch import amp


def step(model, x):
    with th.autocast(device_type="cuda", dtype=th.float16):
        y = model(x)
    with ac('cuda'):
        z = model(y)
    with amp.autocast("cuda"):
        w = model(z)
    return w
