import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch.amp.GradScaler("npu")
local = torch.cuda.amp.GradScaler()
