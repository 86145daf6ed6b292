import torch


@torch.inference_mode()  # migrate: ignore[NPU002]
def predict(model, x):
    return model(x)


@torch.no_grad()
def score(model, x):
    return model(x)
