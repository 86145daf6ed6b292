import argparse

import torch.distributed as dist

BACKEND = "hccl" if dist.is_available() else "gloo"


class Config:
    dist_backend: str = "hccl"


def setup(backend="hccl"):
    if dist.get_backend() == "hccl":
        pass
    if backend in ("hccl", "gloo"):
        pass
    if "hccl" in backend:
        pass
    return {"backend": "hccl", "name": "nccl"}


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-backend", default="hccl", choices=["hccl", "gloo"], help="nccl")
    return parser.parse_args()
