import torch


def pool(x, index, src):
    return x.scatter_reduce(0, index, src, reduce="mean")


def scatter_mean(src, index):
    return torch.zeros_like(src).index_add_(0, index, src)


out = scatter_mean(torch.ones(3), torch.tensor([0, 1, 1]))
