import torch


class Policy:
    def __call__(self, actions, action_mask):
        actions_target = actions[:, -(self.window + 1):, :]
        return self.head(actions_target, torch.as_tensor(action_mask))
