def build(torch, model):
    return torch.compile(model)
