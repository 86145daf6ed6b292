"""Train the tiny policy on one GPU, or several with torchrun."""

import argparse
import os

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

from data import RandomEpisodes
from model import Policy

torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.benchmark = True


def setup_distributed() -> int:
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        os.environ.setdefault("NCCL_ASYNC_ERROR_HANDLING", "1")
        dist.init_process_group(backend="nccl")
        rank = dist.get_rank()
        torch.cuda.set_device(rank)
        return rank
    return 0


def evaluate(model: Policy, loader: DataLoader) -> float:
    errors = []
    for obs, target in loader:
        predicted = model.predict(obs.cuda())
        errors.append(np.mean((predicted - target.numpy()) ** 2))
    return float(np.mean(errors))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--out", default="checkpoints")
    args = parser.parse_args()

    rank = setup_distributed()
    torch.cuda.manual_seed_all(0)
    device = torch.device(args.device)
    model = Policy().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    loader = DataLoader(RandomEpisodes(), batch_size=16, shuffle=True, pin_memory=True)

    step = 0
    while step < args.steps:
        for obs, target in loader:
            obs, target = obs.to(device), target.to(device)
            loss = torch.nn.functional.mse_loss(model(obs), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            step += 1
            if step % 5 == 0 and rank == 0:
                torch.cuda.synchronize()
                memory = torch.cuda.max_memory_allocated() / 2**20
                print(f"step {step} loss {loss.item():.4f} peak {memory:.1f} MiB on cuda")
            if step >= args.steps:
                break

    if rank == 0:
        print(f"eval mse {evaluate(model, loader):.4f}")
        os.makedirs(args.out, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(args.out, "policy.pt"))


if __name__ == "__main__":
    main()
