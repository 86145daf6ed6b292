import torch


class Trainer:
    def setup(self, model):
        model.compile()
        self.backbone.compile(mode="max-autotune")
        self.head.compile(backend="eager")
        return model
