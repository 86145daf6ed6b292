import torch


def is_cuda_compatible(major: int, minor: int) -> bool:
    return torch.cuda.is_available() and torch.cuda.get_device_capability() >= (major, minor)


fp8 = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (8, 9)
bf16 = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (8, 0)
sm = torch.cuda.get_device_properties(0).major
memory = torch.cuda.get_device_properties(0).total_memory
