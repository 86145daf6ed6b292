import numpy as np
import torch


def stats(values):
    t = torch.tensor(values, dtype=torch.float64)
    return t.mean().item()


def to_numpy(x):
    x = x.cuda()
    return x.detach().cpu().double().numpy()


def on_cpu(x, device):
    y = x.to(device)
    z = torch.ones(3, dtype=torch.float64, device="cpu")
    a = np.zeros(4).astype(np.float64)
    return y.float(), z, a


def float32(x, device):
    return torch.zeros(3, dtype=torch.float32, device=device), x.to(device).float()


def shadowed(torch, device):
    return torch.zeros(3, dtype=torch.float64, device=device)


def rope_frequencies(dim, end, theta=10000.0):
    with torch.device("cpu"):
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64, device="cpu") / dim))
        steps = torch.arange(end, device=freqs.device, dtype=torch.float64)
        return torch.outer(steps, freqs).float()


def project(diff, pred):
    if diff.device.type in {"mps", "npu"}:
        v0, v1 = diff.cpu().double(), pred.cpu().double()
    else:
        v0, v1 = diff.double(), pred.double()
    return (v0 * v1).sum().to(diff.device).float()
