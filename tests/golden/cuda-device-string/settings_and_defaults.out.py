from dataclasses import dataclass, field

import torch

DEVICE = "npu"
device = "npu" if torch.cuda.is_available() else "cpu"
devices = [f"npu:{i}" for i in range(8)]
config = {"device": "npu", "name": "cuda"}


@dataclass
class EvalConfig:
    device: str = "npu"
    checkpoint: str = "cuda"


class Runner:
    def __init__(self, rank, device=None):
        self.device = device or "npu"
        self.local_device = f"npu:{rank}"
        self.offload_device = getattr(self, "_offload_device", "npu")

    def run(self, *, device: str = "npu:0", **kwargs):
        target = kwargs.get("device", "npu")
        return target


def get_device():
    return "npu" if torch.cuda.is_available() else "cpu"


def describe():
    return "cuda"


@dataclass
class TrainArgs:
    device: str = field(default="npu", metadata={"help": "cuda or cpu"})
