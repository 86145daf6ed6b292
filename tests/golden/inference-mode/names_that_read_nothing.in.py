from torch import inference_mode


def evaluate(model, batch, inference_mode=False):
    return model(batch, inference_mode=True)


def settings():
    global inference_mode
    return run(inference_mode=False)


class Runner:
    def inference_mode(self):
        return None


CONTEXT = inference_mode
