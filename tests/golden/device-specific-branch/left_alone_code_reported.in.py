import torch
from deepspeed.accelerator import get_accelerator


def report():
    if get_accelerator().device_name() == 'cuda':
        kind = "cuda"
    elif get_accelerator().device_name() == 'npu':
        kind = "npu"
    return kind


def place(x, device):
    if device.type == "npu":
        return x
    elif device.type == "cuda":
        return x.to("cuda")
    return x


def aio_config(use_gds):
    if use_gds:
        assert get_accelerator().device_name() == 'cuda', 'GDS currently only supported for CUDA accelerator'


def _check_device_cuda(query, key, value):
    if query.device.type != "cuda":
        raise ValueError("Query, key, and value must be on a CUDA device.")


def load(path):
    return torch.load(path, map_location="cuda")


def graphs(config, accelerator):
    if accelerator.device_name() == 'cuda' and config.enable_cuda_graph:
        config.capture = True


def gather(tensor):
    assert tensor.device.type == "cuda" or tensor.device.type == "npu"
    return tensor
