"""Reads CUDA_VISIBLE_DEVICES from the environment."""
import os

KEYS = ["CUDA_VISIBLE_DEVICES", "NCCL_DEBUG"]


def hint(logger):
    # os.environ["CUDA_VISIBLE_DEVICES"] is set by the launcher
    logger.info("set CUDA_VISIBLE_DEVICES before starting")
    print("NCCL_DEBUG=INFO")
    return os.environ.get(KEYS[0])
