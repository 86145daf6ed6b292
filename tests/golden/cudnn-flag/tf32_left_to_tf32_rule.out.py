import torch

torch.backends.cudnn.allow_tf32 = True
