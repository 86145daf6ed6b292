import torch


def sync(torch):
    torch.cuda.synchronize()


class Backend:
    def run(self):
        torch = self.fake_torch
        return torch.cuda.device_count()
