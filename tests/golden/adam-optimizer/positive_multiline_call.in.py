import torch


def build_optimizer(model, cfg):
    groups = [{"params": model.parameters(), "lr": cfg.lr}]
    optimizer = torch.optim.AdamW(
        groups,
        lr=cfg.lr,
        betas=(0.9, 0.95),
        weight_decay=cfg.weight_decay,
    )
    plain = torch.optim.Adam(model.head.parameters(), lr=1e-4)
    bare = torch.optim.Adam(model.parameters())
    return optimizer, plain, bare
