import torch
from torch.cuda import get_arch_list


def check():
    try:
        run()
    except torch.cuda.OutOfMemoryError:
        torch.cuda.list_gpu_processes()
    return torch.cuda.get_arch_list(), get_arch_list()
