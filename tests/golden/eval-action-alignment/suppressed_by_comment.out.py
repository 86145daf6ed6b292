import numpy as np


def eval_action_model(pred, actions, action_mask):
    actions = np.array(actions)
    action_mask = np.array(action_mask)
    err = (pred - actions) * action_mask  # migrate: ignore[DIT004]
    return (err**2).sum()
