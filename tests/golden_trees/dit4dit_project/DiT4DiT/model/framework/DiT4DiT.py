"""A small framework module in the shape of DiT4DiT's (fixture for npu-migrator)."""

from typing import List

import numpy as np
import torch
import torch.nn as nn


class DiT4DiT(nn.Module):
    def __init__(self, config, backbone, action_model):
        super().__init__()
        self.config = config
        self.backbone_interface = backbone
        self.action_model = action_model
        self.future_action_window_size = config.framework.action_model.future_action_window_size

    def forward(self, examples: List[dict] = None, **kwargs):
        images = [example["image"] for example in examples]
        instructions = [example["lang"] for example in examples]
        inputs = self.backbone_interface.build_inputs(images=images, instructions=instructions)
        with torch.autocast("npu", dtype=torch.bfloat16):
            outputs = self.backbone_interface(**inputs, output_hidden_states=True)
            last_hidden = outputs.hidden_states[-1]

        actions = [example["action"] for example in examples]  # [B, T, D]
        action_mask = [example["action_mask"] for example in examples]  # [B, T, D]

        with torch.autocast("npu", dtype=torch.float32):
            actions = torch.tensor(np.array(actions), device=last_hidden.device, dtype=last_hidden.dtype)
            actions_target = actions[:, -(self.future_action_window_size+1):, :]
            repeats = 4
            actions_target_repeated = actions_target.repeat(repeats, 1, 1)
            last_hidden_repeated = last_hidden.repeat(repeats, 1, 1)
            action_mask = torch.from_numpy(np.stack(action_mask)).to(last_hidden.device)
            action_mask = action_mask[:, -(self.future_action_window_size+1):]
            action_mask = action_mask.repeat(repeats, 1, 1)
            action_loss = self.action_model(last_hidden_repeated, actions_target_repeated, action_mask)

        return {"action_loss": action_loss}

    @torch.no_grad()
    def predict_action(self, examples: List[dict], **kwargs):
        images = [example["image"] for example in examples]
        instructions = [example["lang"] for example in examples]
        inputs = self.backbone_interface.build_inputs(images=images, instructions=instructions)
        with torch.autocast("npu", dtype=torch.bfloat16):
            outputs = self.backbone_interface(**inputs, output_hidden_states=True)
            last_hidden = outputs.hidden_states[-1]

        with torch.autocast("npu", dtype=torch.float32):
            pred_actions = self.action_model.predict_action(last_hidden)

        normalized_actions = pred_actions.detach().float().cpu().numpy()
        return {"normalized_actions": normalized_actions}
