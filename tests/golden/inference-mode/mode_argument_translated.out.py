import torch


def refine(model, x, frozen, cached):
    # Disabling inference mode turns grad back on: enable_grad, not no_grad.
    with torch.enable_grad():
        a = model(x)
    with torch.enable_grad():
        b = model(a)
    with torch.no_grad():
        c = model(b)
    with torch.set_grad_enabled(not frozen):
        d = model(c)
    with torch.set_grad_enabled(not (frozen or cached)):
        e = model(d)
    return e


@torch.set_grad_enabled(not not_training)
def score(model, x):
    return model(x)


def make_context(frozen):
    # Built now, entered later: set_grad_enabled would switch grad mode too early.
    return torch.inference_mode(frozen)
