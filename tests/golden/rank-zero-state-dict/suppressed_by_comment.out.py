import torch


class Trainer:
    def _save_checkpoint(self, path):
        if self.accelerator.is_main_process:
            state_dict = self.accelerator.get_state_dict(self.model)  # migrate: ignore[DIT002]
            torch.save(state_dict, path)
