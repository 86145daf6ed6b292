import torch
from torch.profiler import ProfilerActivity, profile


def trace(step, Activity):
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        step()
    with torch.autograd.profiler.profile(use_cuda=False) as old:
        step()
    return prof, old, Activity.CUDA
