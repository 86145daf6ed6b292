from torch import inference_mode

no_grad = "a setting of this module, not torch.no_grad"


@inference_mode()
def predict(model, x):
    return model(x)
