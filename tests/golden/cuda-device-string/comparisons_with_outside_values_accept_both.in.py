import torch


class Runner:
    def __init__(self, cfg):
        self.device = torch.device(cfg.run.device)

    def step(self, batch):
        if self.device.type == "cuda":
            batch = batch.to(self.device)
        return batch


def check(device):
    assert device in ["cpu", 'cuda'], device
    if device == 'cuda':
        torch.cuda.synchronize()
    if str(device) != "cuda:0":
        pass
    return device


DEVICE = "cuda"


def local():
    if DEVICE == "cuda":
        pass
    mode = "cuda" if flag else "cpu"
    device_type = mode
    if device_type == "cuda":
        pass
