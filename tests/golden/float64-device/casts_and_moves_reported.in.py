import numpy as np
import torch as th


def gram(x):
    x = x.cuda()
    return th.matmul(x.double(), x.T)


def load_points(path, device):
    points = np.load(path).astype(np.float64)
    pts = th.from_numpy(points).to(device)
    return pts @ pts.T


def intrinsics(k, device):
    k = th.tensor(np.array(k, dtype=np.float64), device=device)
    rot = th.zeros(3, 3, dtype=th.double, device=k.device)
    return k.to(device, th.float64), rot


def legacy_cast(x):
    return x.type(th.cuda.DoubleTensor)
