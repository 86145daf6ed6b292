import torch.distributed as dist
from torch.distributed import Backend, is_nccl_available


def pick():
    if dist.is_backend_available("hccl") and is_nccl_available():
        return "hccl"
    return dist.Backend.GLOO


def check():
    return dist.get_backend() == "hccl"
