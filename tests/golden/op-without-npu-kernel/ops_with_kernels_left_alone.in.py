import torch
import torch.nn.functional as F


def hypot(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.sqrt(a * a + b * b)


def step(points: torch.Tensor, other: torch.Tensor) -> torch.Tensor:
    unique, inverse = torch.unique(points, return_inverse=True, dim=0)
    speed = hypot(points[..., 0], points[..., 1])
    method = points.hypot(other)
    loss = F.smooth_l1_loss(speed, other[..., 0])
    return torch.matmul(points, other.T).sum() + loss + method.sum() + inverse.sum() + unique.sum()
