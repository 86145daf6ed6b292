import torch


model = torch.compile(model)
fast = torch.compile(model, mode="max-autotune", backend="inductor")
graphs = torch.compile(model, backend="cudagraphs")


@torch.compile
def step(x):
    return x * 2


@torch.compile(fullgraph=True)
def other(x):
    return x + 1
