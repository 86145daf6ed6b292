from transformers.utils import is_apex_available

if is_apex_available():
    from apex import amp
else:
    amp = None


def setup(model, optimizer, fp16):
    if fp16 and amp is not None:
        model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
    return model, optimizer
