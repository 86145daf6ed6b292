import torch

DEVICE = "npu"


def load(path, device: str = "npu:0"):
    model = build().to("npu")
    if device == "npu":
        pass
    return torch.load(path, map_location="npu")
