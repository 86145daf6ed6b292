import torch

if hasattr(torch, "npu") or torch.cuda.get_device_capability()[0] >= 8:
    pass
hopper = not hasattr(torch, "npu") and torch.cuda.get_device_capability() >= (9, 0)
