import torch


def make(use_amp, on_gpu):
    a = torch.amp.GradScaler("cuda", enabled=use_amp)
    b = torch.amp.GradScaler(device="cuda")
    c = torch.amp.GradScaler("cuda" if on_gpu else "cpu")
    d = torch.amp.GradScaler(enabled=use_amp)
    e = torch.amp.GradScaler(
        init_scale=1024,
        growth_interval=100,
    )
    return a, b, c, d, e
