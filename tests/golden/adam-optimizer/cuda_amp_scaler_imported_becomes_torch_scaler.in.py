import torch
from torch.cuda.amp import GradScaler

optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
scaler = GradScaler()
