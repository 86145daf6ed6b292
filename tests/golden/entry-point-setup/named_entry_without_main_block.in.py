"""A top-level training script, run as `python scripts/fit.py`."""

import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    model(torch.ones(4)).sum().backward()
    optimizer.step()
