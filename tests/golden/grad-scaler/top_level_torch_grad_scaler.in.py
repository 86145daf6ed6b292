import torch
import torch as T
from torch import GradScaler

# torch.GradScaler is torch.amp.GradScaler: its device defaults to "cuda" too.
a = torch.GradScaler()
b = torch.GradScaler("cuda", enabled=True)
c = T.GradScaler(init_scale=1024)
d = GradScaler()
e = torch.GradScaler("npu")
f = torch.GradScaler(device)
g = torch.amp.GradScaler("cuda")
