import torch


class Trainer:
    def save_inline(self, path):
        if self.accelerator.is_main_process:
            torch.save(self.accelerator.get_state_dict(self.model), path)

    def save_nested(self, path):
        if self.accelerator.is_main_process:
            with open(path, "wb") as f:
                state_dict = self.accelerator.get_state_dict(self.model)
                torch.save(state_dict, f)

    def save_compound(self, path, enabled):
        if self.accelerator.is_main_process and enabled:
            state_dict = self.accelerator.get_state_dict(self.model)
            torch.save(state_dict, path)

    def save_early_return(self, path):
        if not self.accelerator.is_main_process:
            return
        state_dict = self.accelerator.get_state_dict(self.model)
        torch.save(state_dict, path)

    def save_one_line(self, path):
        if self.accelerator.is_main_process: state_dict = self.accelerator.get_state_dict(self.model)
        torch.save(state_dict, path)
