import torch

print("torch.cuda.get_device_capability() >= (8, 0) and torch.version.cuda")


def check(torch):
    return torch.cuda.get_device_capability() >= (8, 0)
