import deepspeed
import torch.distributed as dist


def init(rank, world_size):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    dist.init_process_group(backend="cpu:gloo,cuda:nccl")
    group = dist.new_group([0, 1], None, "nccl")
    other = dist.new_group(ranks=[2, 3], backend="nccl")
    deepspeed.init_distributed(dist_backend="nccl")
    return group, other
