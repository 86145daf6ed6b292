import torch


def step(model):
    print("nvtx ranges are off")
    with torch.profiler.record_function("forward"):
        return model()
