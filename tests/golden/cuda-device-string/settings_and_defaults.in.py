from dataclasses import dataclass, field

import torch

DEVICE = "cuda"
device = "cuda" if torch.cuda.is_available() else "cpu"
devices = [f"cuda:{i}" for i in range(8)]
config = {"device": "cuda", "name": "cuda"}


@dataclass
class EvalConfig:
    device: str = "cuda"
    checkpoint: str = "cuda"


class Runner:
    def __init__(self, rank, device=None):
        self.device = device or "cuda"
        self.local_device = f"cuda:{rank}"
        self.offload_device = getattr(self, "_offload_device", "cuda")

    def run(self, *, device: str = "cuda:0", **kwargs):
        target = kwargs.get("device", "cuda")
        return target


def get_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


def describe():
    return "cuda"


@dataclass
class TrainArgs:
    device: str = field(default="cuda", metadata={"help": "cuda or cpu"})
