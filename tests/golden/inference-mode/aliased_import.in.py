import torch as th
from torch import inference_mode as im


@th.inference_mode()
def predict(model, x):
    return model(x)


def sample(model, x):
    with im():
        return model.sample(x)


@im
def decode(model, z):
    return model.decode(z)
