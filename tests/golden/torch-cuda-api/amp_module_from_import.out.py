import torch
from torch.npu.amp import autocast
from torch.amp import GradScaler

scaler = GradScaler()


def step(model, x):
    with autocast():
        return model(x)
