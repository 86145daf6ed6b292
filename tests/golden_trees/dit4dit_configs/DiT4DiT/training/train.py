import torch


def train_step(model, batch):
    with torch.autocast("npu", dtype=torch.bfloat16):
        return model(batch)
