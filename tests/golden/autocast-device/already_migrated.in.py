import torch


def step(model, x):
    with torch.autocast("npu", dtype=torch.bfloat16):
        return model(x)
