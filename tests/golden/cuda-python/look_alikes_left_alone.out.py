import torch
from numba import cuda as numba_cuda


def free_memory(cuda):
    free, total = torch.cuda.mem_get_info()
    return cuda.mem_get_info(), free


@numba_cuda.jit
def kernel(x):
    pass
