import torch as th
from torch import no_grad, inference_mode as im


@th.no_grad()
def predict(model, x):
    return model(x)


def sample(model, x):
    with no_grad():
        return model.sample(x)


@no_grad
def decode(model, z):
    return model.decode(z)
