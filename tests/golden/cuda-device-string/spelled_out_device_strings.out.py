import torch


def place(rank, local_rank):
    device = f"npu:{rank}"
    device = "npu:" + str(local_rank)
    device = "npu:{}".format(rank)
    device = "npu:%d" % rank
    device = f"npu"
    return torch.device(f"npu:{local_rank}")
