import torch


class Trainer:
    def save(self, path):
        state_dict = None
        # gather on rank 0
        # the whole model
        state_dict = self.accelerator.get_state_dict(self.model)
        if self.accelerator.is_main_process:
            torch.save(state_dict, path)

    def save_last_in_guard(self, path):
        state_dict = self.accelerator.get_state_dict(self.model)
        if self.accelerator.is_main_process:
            print("saving")
            # the whole model
            # nothing else here
        torch.save(state_dict, path)
