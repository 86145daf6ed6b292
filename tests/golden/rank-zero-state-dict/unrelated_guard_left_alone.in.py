import torch


class Trainer:
    def save_best(self, path, loss):
        if loss < self.best_loss:
            state_dict = self.accelerator.get_state_dict(self.model)
            if self.accelerator.is_main_process:
                torch.save(state_dict, path)
