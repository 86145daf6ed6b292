import bitsandbytes as bnb


def build(model):
    optimizer = bnb.optim.AdamW8bit(model.parameters(), lr=1e-4)
    layer = bnb.nn.Linear4bit(1024, 1024)
    return optimizer, layer
