import torch
import torch as th
import torch.cuda as tc
import torch.cuda.amp as cuda_amp
from torch import cuda


def sync():
    th.cuda.synchronize()
    tc.empty_cache()
    cuda.reset_peak_memory_stats()
    return cuda_amp.custom_bwd
