import torch
from torch.npu.amp import GradScaler, autocast

scaler = GradScaler()


def step(model, x):
    with autocast():
        return model(x)
