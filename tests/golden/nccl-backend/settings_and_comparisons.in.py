import argparse

import torch.distributed as dist

BACKEND = "nccl" if dist.is_available() else "gloo"


class Config:
    dist_backend: str = "nccl"


def setup(backend="nccl"):
    if dist.get_backend() == "nccl":
        pass
    if backend in ("nccl", "gloo"):
        pass
    if "nccl" in backend:
        pass
    return {"backend": "nccl", "name": "nccl"}


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-backend", default="nccl", choices=["nccl", "gloo"], help="nccl")
    return parser.parse_args()
