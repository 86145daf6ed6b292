import torch


class Trainer:
    def _save_checkpoint(self, path):
        state_dict = self.accelerator.get_state_dict(self.model)
        if self.accelerator.is_main_process:
            torch.save(state_dict, path)
        self.accelerator.wait_for_everyone()
