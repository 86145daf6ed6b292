import pynvml
import torch


def device_flops():
    if torch.cuda.is_available():
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        return pynvml.nvmlDeviceGetName(handle)
    return None


if torch.cuda.is_available():
    torch.cuda.synchronize()
