import torch


def train_step(model, batch):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(batch)
    return loss
