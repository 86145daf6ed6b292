import torch

try:
    import transformer_engine.pytorch as te
except ImportError:
    te = None


def make_linear(dim):
    if te is not None:
        return te.Linear(dim, dim)
    return torch.nn.Linear(dim, dim)


def engine(transformer_engine):
    return transformer_engine.pytorch.Linear(4, 4)


print("transformer_engine is optional")
