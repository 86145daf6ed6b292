import torch as th
from torch import device as make_device
from torch import load as load_state


def build(path):
    here = th.device("cuda")
    there = make_device("cuda", 1)
    state = load_state(path, "cuda:0")
    gen = th.Generator("cuda")
    return here, there, state, gen
