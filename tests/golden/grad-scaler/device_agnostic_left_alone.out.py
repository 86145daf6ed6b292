import torch


def make(device):
    return torch.amp.GradScaler(device.type), torch.amp.GradScaler(device=device)
