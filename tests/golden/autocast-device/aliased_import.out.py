import torch as th
from torch import autocast as ac
from torch import amp


def step(model, x):
    with th.autocast(device_type="npu", dtype=th.float16):
        y = model(x)
    with ac('npu'):
        z = model(y)
    with amp.autocast("npu"):
        w = model(z)
    return w
