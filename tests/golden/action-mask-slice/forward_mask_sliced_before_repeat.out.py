import numpy as np
import torch


class Policy(torch.nn.Module):
    def forward(self, examples):
        hidden = self.backbone(examples)
        actions = [ex["action"] for ex in examples]
        action_mask = [ex["action_mask"] for ex in examples]  # [B, T, D]

        with torch.autocast("cuda", dtype=torch.float32):
            actions = torch.tensor(np.array(actions), device=hidden.device, dtype=hidden.dtype)
            actions_target = actions[:, -(self.future_action_window_size+1):, :]  # (B, chunk, D)

            repeats = self.repeats
            actions_target_repeated = actions_target.repeat(repeats, 1, 1)
            action_mask = torch.from_numpy(np.stack(action_mask)).to(hidden.device)
            action_mask = action_mask[:, -(self.future_action_window_size+1):]
            # one copy per diffusion step
            action_mask = action_mask.repeat(repeats, 1, 1)
            loss = self.head(hidden.repeat(repeats, 1, 1), actions_target_repeated, action_mask)
        return {"action_loss": loss}
