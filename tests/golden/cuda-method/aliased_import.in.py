import torch as th
from torch import zeros as z


def make():
    a = th.zeros(3).cuda()
    b = z(2).cuda(non_blocking=True)
    return a, b
