import torch


def empty_cache(device_type):
    module = getattr(torch, device_type, torch.cuda)
    module.empty_cache()


def accelerator_module():
    return torch.cuda if torch.cuda.is_available() else torch.cpu


BACKEND_SYNCHRONIZE = {
    "cuda": torch.cuda.synchronize,
    "xpu": torch.xpu.synchronize,
    "default": None,
}
BACKEND_BATCH = {"cuda": 8, "cpu": 1}
