import numpy as xp
import torch as th
from torch import from_numpy as to_tensor


class Policy(th.nn.Module):
    def forward(self, actions, action_mask):
        actions_target = actions[:, -self.chunk:]
        action_mask = to_tensor(xp.stack(action_mask)).bool()
        action_mask = action_mask[:, -self.chunk:]
        return self.head(actions_target, action_mask)
