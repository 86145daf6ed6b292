import numpy as np


class Trainer:
    def evaluate(self, pred, actions, action_mask):
        # Upstream renamed the evaluation method.
        actions = np.array(actions)
        action_mask = np.array(action_mask)
        return ((pred - actions) * action_mask).sum()
