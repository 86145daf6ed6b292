import torch


def make():
    return torch.npu.amp.GradScaler(), torch.amp.GradScaler("npu"), torch.amp.GradScaler(device="npu")
