import torch
import torch as T
from torch import GradScaler

# torch.GradScaler is torch.amp.GradScaler: its device defaults to "cuda" too.
a = torch.amp.GradScaler("npu")
b = torch.amp.GradScaler("npu", enabled=True)
c = T.amp.GradScaler("npu", init_scale=1024)
d = GradScaler("npu")
e = torch.GradScaler("npu")
f = torch.GradScaler(device)
g = torch.amp.GradScaler("npu")
