"""A small GPT trainer written for the emulator's CI, as a migrated project would write it.

Token and position embeddings, causal self-attention (SDPA), a cross-entropy loss,
AdamW, and for fp16 a GradScaler: the pieces of a nanoGPT-style trainer that decide
whether it runs on an Ascend host. ``train()`` runs in the calling process (the tests
emulate theirs); ``python -m npu_emulator tests/emulate/gpt_trainer.py --precision bf16``
runs it as a script. The data is a synthetic "next token is this token + 1" stream, so
the loss falls within a few steps.
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass
from typing import Literal

import torch
import torch.nn.functional as F
from torch import nn

Precision = Literal["fp32", "bf16", "fp16"]
Scaler = Literal["torch_npu", "torch"]


@dataclass(frozen=True)
class Config:
    vocab: int = 64
    context: int = 16
    width: int = 32
    heads: int = 2
    layers: int = 2


class CausalSelfAttention(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.heads = config.heads
        self.qkv = nn.Linear(config.width, 3 * config.width)
        self.proj = nn.Linear(config.width, config.width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=2)
        q, k, v = (t.view(batch, length, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(batch, length, width))


class Block(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(config.width)
        self.attn = CausalSelfAttention(config)
        self.ln2 = nn.LayerNorm(config.width)
        self.mlp = nn.Sequential(
            nn.Linear(config.width, 4 * config.width),
            nn.GELU(),
            nn.Linear(4 * config.width, config.width),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.tokens = nn.Embedding(config.vocab, config.width)
        self.positions = nn.Embedding(config.context, config.width)
        self.blocks = nn.Sequential(*(Block(config) for _ in range(config.layers)))
        self.ln = nn.LayerNorm(config.width)
        self.head = nn.Linear(config.width, config.vocab, bias=False)
        self.head.weight = self.tokens.weight  # tied, as GPT-2 does
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)  # GPT-2's initialisation
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(idx.shape[1], device=idx.device)
        x = self.blocks(self.tokens(idx) + self.positions(positions))
        logits = self.head(self.ln(x))
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))


def batches(config: Config, batch: int, generator: torch.Generator) -> torch.Tensor:
    start = torch.randint(0, config.vocab, (batch, 1), generator=generator)
    return (start + torch.arange(config.context + 1)) % config.vocab


def train(
    precision: Precision = "bf16",
    *,
    scaler: Scaler = "torch",
    fused: bool = True,
    steps: int = 12,
    batch: int = 16,
    device: str = "npu",
    seed: int = 0,
) -> list[float]:
    """Train for ``steps`` steps; the losses, one per step."""
    torch.manual_seed(seed)
    config = Config()
    model = GPT(config).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, fused=fused)
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    grad_scaler: torch.amp.GradScaler | None = None
    if precision == "fp16":
        # torch_npu's own scaler, or torch's (which speaks the fused optimizers' contract).
        grad_scaler = (
            torch.npu.amp.GradScaler() if scaler == "torch_npu" else torch.amp.GradScaler(device)
        )
    generator = torch.Generator().manual_seed(seed)
    losses = []
    for _ in range(steps):
        data = batches(config, batch, generator).to(device)
        with torch.autocast(device, dtype=dtype, enabled=precision != "fp32"):
            loss = model(data[:, :-1], data[:, 1:])
        optimizer.zero_grad(set_to_none=True)
        if grad_scaler is None:
            loss.backward()
            optimizer.step()
        else:
            grad_scaler.scale(loss).backward()
            grad_scaler.step(optimizer)
            grad_scaler.update()
        value = loss.item()
        if not math.isfinite(value):
            raise RuntimeError(f"loss is {value}")
        losses.append(value)
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default="bf16")
    parser.add_argument("--scaler", choices=["torch_npu", "torch"], default="torch")
    parser.add_argument("--no-fused", dest="fused", action="store_false")
    parser.add_argument("--steps", type=int, default=12)
    args = parser.parse_args()
    losses = train(args.precision, scaler=args.scaler, fused=args.fused, steps=args.steps)
    print(json.dumps({"losses": losses}))


if __name__ == "__main__":
    main()
