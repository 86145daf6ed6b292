from torch.cuda import get_device_capability

import torch

fp8 = get_device_capability() >= (8, 9)
hopper = torch.cuda.get_device_capability()[0] > 8
if torch.cuda.get_device_capability() < (8, 0):
    dtype = torch.float16
