"""The fixture framework after upstream moved the target slicing into a helper."""

import torch


class DiT4DiT(torch.nn.Module):
    def forward(self, examples, **kwargs):
        actions = torch.stack([example["action"] for example in examples])
        action_mask = torch.stack([example["action_mask"] for example in examples])
        target_chunk, mask_chunk = self.chunker(actions, action_mask)
        return {"action_loss": self.action_model(target_chunk, mask_chunk)}
