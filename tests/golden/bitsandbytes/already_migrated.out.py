import torch

optimizer = torch.optim.AdamW(params, lr=1e-4, fused=True)
model = model.to(torch.bfloat16)  # bitsandbytes 8-bit removed
