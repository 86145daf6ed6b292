import torch


def refine(model, x, frozen, cached):
    # Disabling inference mode turns grad back on: enable_grad, not no_grad.
    with torch.inference_mode(False):
        a = model(x)
    with torch.inference_mode(mode=False):
        b = model(a)
    with torch.inference_mode(mode=True):
        c = model(b)
    with torch.inference_mode(mode=frozen):
        d = model(c)
    with torch.inference_mode(frozen or cached):
        e = model(d)
    return e


@torch.inference_mode(mode=not_training)
def score(model, x):
    return model(x)


def make_context(frozen):
    # Built now, entered later: set_grad_enabled would switch grad mode too early.
    return torch.inference_mode(frozen)
