import torch


def info():
    """Triton kernels are not used here (triton.jit)."""
    print("triton is disabled; using torch ops")
    return torch.add(torch.ones(2), 1)
