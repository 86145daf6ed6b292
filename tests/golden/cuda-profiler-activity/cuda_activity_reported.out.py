import torch
from torch.profiler import ProfilerActivity, profile, schedule


def trace(step):
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=activities, schedule=schedule(wait=1, warmup=1, active=3)) as prof:
        step()
    with torch.autograd.profiler.profile(use_cuda=True) as old:
        step()
    return prof, old
