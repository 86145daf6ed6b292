import numpy as np


class Policy:
    def forward(self, actions, action_mask, torch):
        # `torch` is a parameter here: its from_numpy is not known to build a tensor.
        actions_target = actions[:, -(self.window + 1):, :]
        action_mask = torch.from_numpy(np.stack(action_mask))
        return self.head(actions_target, action_mask)
