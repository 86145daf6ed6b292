import torch
import torch as th
import torch.cuda as tc
import torch.npu.amp as cuda_amp
from torch import cuda


def sync():
    th.npu.synchronize()
    torch.npu.empty_cache()
    torch.npu.reset_peak_memory_stats()
    return cuda_amp.custom_bwd
