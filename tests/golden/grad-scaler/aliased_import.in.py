import torch as th
from torch.amp import GradScaler as Scaler


def make():
    return th.cuda.amp.GradScaler(), Scaler("cuda"), Scaler()
