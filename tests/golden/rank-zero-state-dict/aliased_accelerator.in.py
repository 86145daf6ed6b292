import torch


class Trainer:
    def save(self, path):
        acc = self.accelerator
        if acc.is_local_main_process:
            sd = acc.get_state_dict(self.model, unwrap=True)
            torch.save(sd, path)
