import logging

import numpy as np

logger = logging.getLogger(__name__)


def eval_action_model(pred, actions, action_mask):
    """(pred - actions) * action_mask, on arrays of the same length."""
    logger.info("eval_action_model: (pred - actions) * action_mask")
    actions = np.asarray(actions)[:, -pred.shape[1]:]
    action_mask = np.asarray(action_mask)[:, -pred.shape[1]:]
    return ((pred - actions) * action_mask).sum()
