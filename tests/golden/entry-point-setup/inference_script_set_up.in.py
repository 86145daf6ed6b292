"""Serve a trained policy: inference only."""

import torch


def serve(path, device="cuda"):
    policy = torch.load(path).to(device).eval()
    return policy


if __name__ == "__main__":
    serve("policy.pt")
