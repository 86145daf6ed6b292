from torch.cuda import get_device_capability

import torch

fp8 = not hasattr(torch, "npu") and get_device_capability() >= (8, 9)
hopper = not hasattr(torch, "npu") and torch.cuda.get_device_capability()[0] > 8
if not hasattr(torch, "npu") and torch.cuda.get_device_capability() < (8, 0):
    dtype = torch.float16
