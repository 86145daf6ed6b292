import bitsandbytes


def build(bitsandbytes, params):
    return bitsandbytes.optim.AdamW8bit(params)
