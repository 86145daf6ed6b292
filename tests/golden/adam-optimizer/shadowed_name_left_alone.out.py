import torch


class AdamW:
    def __init__(self, params, lr):
        self.params = params


def build(params, torch):
    # Both are local names: this AdamW class and a `torch` parameter.
    return AdamW(params, lr=1e-3), torch.optim.AdamW(params)
