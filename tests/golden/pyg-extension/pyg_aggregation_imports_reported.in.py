import torch
from torch_geometric.data import Data
from torch_geometric.nn.conv import MessagePassing
from torch_geometric.utils import softmax, subgraph


class Attention(MessagePassing):
    def message(self, x_j: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return softmax(x_j, index)


def sample(data: Data) -> object:
    return subgraph(data.edge_index, data.edge_index)
