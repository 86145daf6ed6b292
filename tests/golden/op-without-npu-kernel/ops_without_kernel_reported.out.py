import torch
import torch.nn.functional as F
from torch import hypot as length


class Dynamics(torch.nn.Module):
    def forward(self, state: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        speed = torch.hypot(state[..., 3], state[..., 4])
        other = length(state[..., 0], state[..., 1])
        loss = F.huber_loss(speed, target)
        values = torch.linalg.eig(state[..., :2, :2])
        return loss + other + torch.lgamma(speed).sum() + values[0].real.sum()
