import torch


def make(torch):
    return torch.cuda.amp.GradScaler(), torch.amp.GradScaler("cuda")
