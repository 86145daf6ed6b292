import torch


def forward(model, batch, device):
    x = batch.to(device)
    y = torch.zeros(3, device=x.device)
    z = torch.ones(2, device=next(model.parameters()).device)
    w = x.to(self.device)
    return torch.device(device.type)
