import torch


def configure(torch):
    torch.backends.cuda.matmul.allow_tf32 = True
