import torch


class Policy:
    def forward(self, actions, action_mask):
        actions_target = actions[:, :, :7]
        action_mask = torch.as_tensor(action_mask)
        return self.head(actions_target, action_mask)
