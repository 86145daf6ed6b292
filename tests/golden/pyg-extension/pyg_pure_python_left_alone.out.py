from torch_geometric.data import Batch, Data
from torch_geometric.typing import Adj, OptTensor
from torch_geometric.utils import subgraph

try:
    from torch_geometric.utils import softmax
except ImportError:
    softmax = None


def edges(batch: Batch, data: Data, adj: Adj, weight: OptTensor) -> object:
    return subgraph(adj, data.edge_index)
