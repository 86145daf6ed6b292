"""A tiny policy: a transformer backbone run in bf16 and an action head kept in fp32."""

import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.proj = nn.Linear(8, dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        out, _ = self.attn(h, h, h, need_weights=False)
        return self.norm(h + out)


class ActionHead(nn.Module):
    def __init__(self, dim: int = 32, action_dim: int = 4) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, action_dim))

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.mlp(hidden.mean(dim=1))


class Policy(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = Backbone()
        self.head = ActionHead()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The backbone runs in bf16; the head must see fp32 features.
        with torch.autocast("cuda", dtype=torch.bfloat16):
            hidden = self.backbone(x)
        with torch.autocast("cuda", dtype=torch.float32):
            return self.head(hidden)

    @torch.inference_mode()
    def predict(self, x: torch.Tensor):
        actions = self.forward(x)
        return actions.detach().cpu().numpy()
