import spconv.pytorch as spconv
from spconv.pytorch import SubMConv3d


def backbone():
    return spconv.SparseSequential(
        SubMConv3d(4, 16, 3, indice_key="subm1"),
        spconv.SparseConv3d(16, 32, 3, stride=2),
    )


def to_sparse(features, indices, shape, batch_size):
    return spconv.SparseConvTensor(features, indices, shape, batch_size)
