import torch

if torch.is_autocast_enabled():
    target_dtype = torch.get_autocast_gpu_dtype()
torch.set_autocast_gpu_dtype(torch.bfloat16)
torch.set_autocast_enabled(True)
on = torch.is_autocast_enabled("cuda")
dt = torch.get_autocast_dtype("npu")
cpu = torch.is_autocast_enabled("cpu")


def is_autocast_enabled():
    return False


def own_helper(x):
    # A local function of the same name is not torch's.
    return is_autocast_enabled() and x
