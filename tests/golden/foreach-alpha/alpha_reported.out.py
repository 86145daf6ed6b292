import torch


@torch.no_grad()
def sgd_step(params, grads, lr):
    torch._foreach_add_(params, grads, alpha=-lr)


def ema_update(ema, params, decay):
    torch._foreach_mul_(ema, decay)
    torch._foreach_add_(ema, params, alpha=1 - decay)
