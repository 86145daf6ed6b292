import torch


def configure(torch):
    torch.backends.cudnn.benchmark = True
