# Copyright 2026 Example authors.
# Licensed under the Apache License, Version 2.0.

# Third-party libraries
import torch


def train(model, loader, optimizer):
    for batch in loader:
        optimizer.zero_grad()
        model(batch).mean().backward()
        optimizer.step()


if __name__ == "__main__": train(*setup())  # one line
