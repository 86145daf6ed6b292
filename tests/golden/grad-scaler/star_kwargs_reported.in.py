import torch


def make(**scaler_kwargs):
    return torch.amp.GradScaler(**scaler_kwargs)
