import torch


class Policy:
    def forward(self, actions, action_mask):
        """action_mask is cut like actions_target = actions[:, -(w + 1):, :]."""
        actions_target = actions[:, -(self.window + 1):, :]
        action_mask = torch.as_tensor(action_mask)[:, -(self.window + 1):]
        print("action_mask sliced to", action_mask.shape)
        return self.head(actions_target, action_mask)
