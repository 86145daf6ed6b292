import torch
from torch.npu import empty_cache


def setup(rank):
    torch.npu.set_device(rank)
    empty_cache()
    return torch.npu.device_count()
