import torch


class Trainer:
    def save_unwrapped(self, path):
        if self.accelerator.is_main_process:
            model = self.accelerator.unwrap_model(self.model)
            state_dict = self.accelerator.get_state_dict(model)
            torch.save(state_dict, path)

    def save_after_eval(self, path):
        if self.accelerator.is_main_process:
            self.model.eval()
            state_dict = self.accelerator.get_state_dict(self.model)
            torch.save(state_dict, path)

    def save_twice(self, path, state_dict):
        if self.accelerator.is_main_process:
            torch.save(state_dict, path + ".old")
            state_dict = self.accelerator.get_state_dict(self.model)
            torch.save(state_dict, path)
