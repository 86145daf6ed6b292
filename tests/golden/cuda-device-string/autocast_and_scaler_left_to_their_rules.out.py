import torch


def step(model, x, use_amp):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        y = model(x)
    with torch.autocast(device_type="npu" if use_amp else "cpu"):
        z = model(y)
    scaler = torch.amp.GradScaler(device="cuda")
    fwd = torch.amp.custom_fwd(device_type="npu")
    return z, scaler, fwd
