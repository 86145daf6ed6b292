import torch as th
from torch.amp import GradScaler as Scaler


def make():
    return th.amp.GradScaler("npu"), Scaler("npu"), Scaler("npu")
