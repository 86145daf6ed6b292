import torch

norm = torch.nn.RMSNorm(4096)
args = {"use_liger_kernel": False}
print("liger_kernel disabled")
