import torch


class Runner:
    def __init__(self, cfg):
        self.device = torch.device(cfg.run.device)

    def step(self, batch):
        if self.device.type in ("cuda", "npu"):
            batch = batch.to(self.device)
        return batch


def check(device):
    assert device in ["cpu", 'cuda', 'npu'], device
    if device in ('cuda', 'npu'):
        torch.cuda.synchronize()
    if str(device) not in ("cuda:0", "npu:0"):
        pass
    return device


DEVICE = "npu"


def local():
    if DEVICE == "npu":
        pass
    mode = "cuda" if flag else "cpu"
    device_type = mode
    if device_type in ("cuda", "npu"):
        pass
