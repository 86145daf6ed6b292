import torch


def triton_free_add(x, y):
    return torch.add(x, y)
