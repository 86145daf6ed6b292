import numpy as np


class Trainer:
    def eval_action_model(self, pred, actions):
        actions = np.array(actions)
        return float(np.mean((pred - actions) ** 2))
