import torch
from torch.optim import SGD

# torch-npu 2.7.1.post2 has only the fused AdamW kernel.
adam = torch.optim.Adam(model.parameters(), lr=1e-3)
sgd = SGD(model.parameters(), lr=0.1, momentum=0.9)
adamw = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
