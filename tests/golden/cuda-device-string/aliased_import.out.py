import torch as th
from torch import device as make_device
from torch import load as load_state


def build(path):
    here = th.device("npu")
    there = make_device("npu", 1)
    state = load_state(path, "npu:0")
    gen = th.Generator("npu")
    return here, there, state, gen
