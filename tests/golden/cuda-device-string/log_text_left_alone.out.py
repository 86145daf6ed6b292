"""Runs on "cuda" when available; pass device="cuda" to force it."""
import logging

logger = logging.getLogger(__name__)
USAGE = "python run.py --device cuda"
BACKENDS = ["cuda", "cpu"]


def report(device):
    # model.to("cuda") used to be here
    logger.info("moving the model to %s", "cuda")
    print(f"device: cuda:{device}")
    print("cuda")
    label = "cuda"
    raise RuntimeError("expected device cuda")
