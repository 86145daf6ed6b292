"""A helper that prints a model's summary; `model.train()` only sets the mode."""
import torch


def summary():
    model = torch.nn.Linear(2, 2)
    model.train()
    print(model)


if __name__ == "__main__":
    summary()
