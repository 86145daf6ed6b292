import torch


class Trainer:
    def save(self, path):
        acc = self.accelerator
        sd = acc.get_state_dict(self.model, unwrap=True)
        if acc.is_local_main_process:
            torch.save(sd, path)
