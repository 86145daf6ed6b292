import torch
from torch.jit import script


@torch.jit.script
def fused_gelu(x):
    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * (x + 0.044715 * x * x * x)))


def export(model, path):
    scripted = script(model)
    scripted.save(path)
