import torch
import torch as th


def pick_dtype(ok):
    if hasattr(torch, "npu") or torch.cuda.get_device_capability()[0] >= 8:
        return torch.bfloat16
    use_bf16 = ok and (hasattr(th, "npu") or th.cuda.get_device_capability(0) >= (8, 0))
    assert (hasattr(torch, "npu") or torch.cuda.get_device_capability() >= (7, 0)), "needs tensor cores"
    return (hasattr(torch, "npu") or (8, 0) <= torch.cuda.get_device_capability()) and use_bf16
