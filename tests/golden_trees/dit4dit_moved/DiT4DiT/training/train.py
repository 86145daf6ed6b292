"""The fixture trainer after upstream moved on: the shapes the DiT4DiT rules expect are gone."""

import os

import numpy as np
import torch
from accelerate import Accelerator, DeepSpeedPlugin

deepspeed_plugin = DeepSpeedPlugin()
accelerator = Accelerator(deepspeed_plugin=deepspeed_plugin)


class VLATrainer:
    def evaluate_actions(self, predicted, examples):
        """Renamed from eval_action_model, and the error is computed elsewhere."""
        actions = np.array([example["action"] for example in examples])
        return self.metrics.masked_mse(predicted, actions)

    def save_checkpoint(self):
        """Renamed, and already gathers on every rank."""
        state_dict = self.accelerator.get_state_dict(self.model)
        if self.accelerator.is_main_process:
            torch.save(state_dict, os.path.join(self.checkpoint_dir, "model.pt"))
        self.accelerator.wait_for_everyone()

    def _finalize_training(self):
        if self.accelerator.is_main_process:
            torch.save(self.accelerator.get_state_dict(self.model), "final_model.pt")
        self.accelerator.wait_for_everyone()
