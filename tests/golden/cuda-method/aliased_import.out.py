import torch as th
from torch import zeros as z


def make():
    a = th.zeros(3).npu()
    b = z(2).npu(non_blocking=True)
    return a, b
