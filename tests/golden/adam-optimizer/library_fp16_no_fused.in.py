import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
