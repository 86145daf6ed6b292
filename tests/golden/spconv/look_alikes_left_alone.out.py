import torch

conv = torch.nn.Conv3d(16, 32, 3)
config = {"backbone": "spconv"}
print("spconv is not used here")
