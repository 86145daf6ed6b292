import torch_cluster
from torch_scatter import scatter_max, scatter_mean
from torch_sparse import SparseTensor


def pool(x, index):
    mean = scatter_mean(x, index, dim=0)
    peak, argmax = scatter_max(x, index, dim=0)
    return mean, peak


def neighbours(pos, batch):
    idx = torch_cluster.fps(pos, batch, ratio=0.25)
    edges = torch_cluster.knn(pos, pos[idx], k=16)
    adj = SparseTensor(row=edges[0], col=edges[1])
    return adj
