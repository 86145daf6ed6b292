"""Train a model."""

import torch


def main():
    model = torch.nn.Linear(4, 4)
    optimizer = torch.optim.AdamW(model.parameters())
    loss = model(torch.ones(4)).sum()
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    main()
