import torch as th
from torch.amp import GradScaler as Scaler


def make():
    return th.npu.amp.GradScaler(), Scaler("npu"), Scaler(device="npu")
