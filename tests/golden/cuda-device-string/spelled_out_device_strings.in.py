import torch


def place(rank, local_rank):
    device = f"cuda:{rank}"
    device = "cuda:" + str(local_rank)
    device = "cuda:{}".format(rank)
    device = "cuda:%d" % rank
    device = f"cuda"
    return torch.device(f"cuda:{local_rank}")
