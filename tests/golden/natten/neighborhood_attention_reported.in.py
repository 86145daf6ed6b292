from natten import NeighborhoodAttention2D
from natten.functional import na2d


def build(dim):
    return NeighborhoodAttention2D(dim=dim, num_heads=4, kernel_size=7)


def attend(q, k, v):
    return na2d(q, k, v, kernel_size=7, dilation=2)
