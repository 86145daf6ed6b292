import torch


def configure(seed):
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = False
    torch.backends.cudnn.enabled = True
    if torch.backends.cudnn.is_available():
        print(torch.backends.cudnn.version())
