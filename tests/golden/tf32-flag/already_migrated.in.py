import torch

torch.npu.matmul.allow_hf32 = True
torch.npu.conv.allow_hf32 = True
