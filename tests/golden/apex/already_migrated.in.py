import torch

optimizer = torch.optim.AdamW(params, lr=1e-4, fused=True)
norm = torch.nn.RMSNorm(512)
with torch.autocast("npu", dtype=torch.bfloat16):
    loss = model(batch)
