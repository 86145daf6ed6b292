import torch


class Policy:
    def forward(self, actions, action_mask):
        # Upstream renamed the targets and slices elsewhere.
        chunk = self.slice_chunk(actions)
        return self.head(chunk, torch.as_tensor(action_mask))
