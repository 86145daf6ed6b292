import deepspeed
import torch.distributed as dist


def init(rank, world_size):
    dist.init_process_group("hccl", rank=rank, world_size=world_size)
    dist.init_process_group(backend="cpu:gloo,npu:hccl")
    group = dist.new_group([0, 1], None, "hccl")
    other = dist.new_group(ranks=[2, 3], backend="hccl")
    deepspeed.init_distributed(dist_backend="hccl")
    return group, other
