import torch


def restore(torch, path):
    state = torch.load(path, "cuda")
    gen = torch.Generator("cuda")
    return state, gen
