from apex import amp


def run(amp, model, optimizer):
    # `amp` is a parameter here, not apex.amp.
    return amp.initialize(model, optimizer)
