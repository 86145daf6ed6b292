import torch
import torch as th


@torch.npu.amp.autocast()
def forward(model, x):
    return model(x)


def step(model, x):
    with th.npu.amp.autocast(enabled=True):
        return model(x)
