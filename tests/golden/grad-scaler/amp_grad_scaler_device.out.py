import torch


def make(use_amp, on_gpu):
    a = torch.amp.GradScaler("npu", enabled=use_amp)
    b = torch.amp.GradScaler(device="npu")
    c = torch.amp.GradScaler("npu" if on_gpu else "cpu")
    d = torch.amp.GradScaler("npu", enabled=use_amp)
    e = torch.amp.GradScaler(
        "npu",
        init_scale=1024,
        growth_interval=100,
    )
    return a, b, c, d, e
