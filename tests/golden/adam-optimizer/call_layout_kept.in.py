import torch

a = torch.optim.AdamW(params, lr=1e-4 )
b = torch.optim.AdamW(
    params,
    lr=1e-4
)
c = torch.optim.AdamW(
    params,
    lr=1e-4,  # the paper's value
)
d = torch.optim.AdamW(
    params,
    lr=1e-4  # the paper's value
)
e = torch.optim.AdamW(params,
                      lr=1e-4,
                      weight_decay=0.01)
f = torch.optim.AdamW(
    params, lr=1e-4, betas=(0.9, 0.95),
    # keep eps small
)
g = torch.optim.AdamW(params)
h = torch.optim.AdamW(
    params, lr=1e-4, betas=(0.9, 0.95))


def build(model):
    return torch.optim.AdamW(
        model.parameters()
    )


def build_commented(model):
    return torch.optim.Adam(
        model.parameters(),
        lr=3e-4,
        # betas from the paper
        betas=(0.9, 0.95),  # trailing note

    )
