import torch

a = torch.optim.AdamW(params, lr=1e-4, fused=True )
b = torch.optim.AdamW(
    params,
    lr=1e-4,
    fused=True
)
c = torch.optim.AdamW(
    params,
    lr=1e-4,  # the paper's value
    fused=True,
)
d = torch.optim.AdamW(
    params,
    lr=1e-4,  # the paper's value
    fused=True
)
e = torch.optim.AdamW(params,
                      lr=1e-4,
                      weight_decay=0.01,
                      fused=True)
f = torch.optim.AdamW(
    params, lr=1e-4, betas=(0.9, 0.95), fused=True,
    # keep eps small
)
g = torch.optim.AdamW(params, fused=True)
h = torch.optim.AdamW(
    params, lr=1e-4, betas=(0.9, 0.95), fused=True)


def build(model):
    return torch.optim.AdamW(
        model.parameters(),
        fused=True
    )


def build_commented(model):
    return torch.optim.Adam(
        model.parameters(),
        lr=3e-4,
        # betas from the paper
        betas=(0.9, 0.95),  # trailing note

        fused=True,
    )
