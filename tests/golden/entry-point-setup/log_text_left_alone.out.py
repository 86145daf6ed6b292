"""Mentions loss.backward() and Accelerator() in text only."""

import logging

logger = logging.getLogger(__name__)


def explain():
    logger.info("train.py calls loss.backward() and builds Accelerator() in __main__")


if __name__ == "__main__":
    explain()
