import torch


class Policy:
    def forward(self, actions, action_mask):
        action_mask = torch.as_tensor(action_mask, device=actions.device)
        if self.training:
            actions_target = actions[:, -(self.window + 1):, :]
            action_mask = action_mask[:, -(self.window + 1):]
            # the head masks padded steps
            loss = self.head(actions_target, action_mask)
        else:
            loss = None
        return loss
