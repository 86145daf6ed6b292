import torch


def is_cuda_compatible(major: int, minor: int) -> bool:
    return torch.cuda.is_available() and torch.cuda.get_device_capability() >= (
        major,
        minor,
    )


def fp8_ok(required):
    if torch.cuda.get_device_capability() >= required:
        return True
    return False
