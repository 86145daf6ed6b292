import torch


def step(params, grads, lr):
    scaled = torch._foreach_mul(grads, -lr)
    torch._foreach_add_(params, scaled)
    for p, g in zip(params, grads):
        p.add_(g, alpha=-lr)
