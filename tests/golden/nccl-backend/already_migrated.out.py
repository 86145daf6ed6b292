import torch.distributed as dist


def init(backend="hccl"):
    dist.init_process_group("hccl")
    if backend in ("nccl", "hccl"):
        pass
