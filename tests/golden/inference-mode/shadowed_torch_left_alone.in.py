import torch


def run(torch, x):
    # `torch` is a parameter here, not the torch module.
    with torch.inference_mode():
        return x


def inference_mode():
    return None


def other(model, x):
    with inference_mode():
        return model(x)


class Config:
    inference_mode = True


def uses_attribute(config):
    return config.inference_mode and torch.is_inference_mode_enabled()
