import torch
import torch_npu

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
scaler = torch_npu.npu.amp.GradScaler()
