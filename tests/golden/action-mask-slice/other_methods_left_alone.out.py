import torch


class Policy:
    def forward(self, actions, action_mask):
        actions_target = actions[:, -(self.window + 1):, :]
        action_mask = torch.as_tensor(action_mask)
        action_mask = action_mask[:, -(self.window + 1):]
        return self.head(actions_target, action_mask)

    def predict_action(self, actions, action_mask):
        actions_target = actions[:, -(self.window + 1):, :]
        action_mask = torch.as_tensor(action_mask)
        return self.head(actions_target, action_mask)


def forward(actions, action_mask):
    actions_target = actions[:, -8:, :]
    action_mask = torch.as_tensor(action_mask)
    return actions_target * action_mask
