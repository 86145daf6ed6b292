import torch

torch.set_float32_matmul_precision("highest")
torch.backends.mkldnn.matmul.fp32_precision = "bf16"
print("fp32_precision = tf32")
