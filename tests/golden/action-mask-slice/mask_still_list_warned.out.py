import numpy as np
import torch


class Policy:
    def forward(self, actions, action_mask):
        actions_target = actions[:, -(self.window + 1):, :]
        action_mask = torch.from_numpy(np.stack(action_mask)).to(actions.device).repeat(4, 1, 1)
        return self.head(actions_target.repeat(4, 1, 1), action_mask)
