import torch.distributed as dist
from torch.distributed import Backend, is_nccl_available


def pick():
    if dist.is_nccl_available() and is_nccl_available():
        return Backend.NCCL
    return dist.Backend.GLOO


def check():
    return dist.get_backend() == dist.Backend.NCCL
