import torch

use_bf16 = hasattr(torch, "npu") or torch.cuda.get_device_properties(0).major >= 8
if not hasattr(torch, "npu") and torch.cuda.get_device_properties(torch.cuda.current_device()).major < 8:
    dtype = torch.float16
arch = torch.cuda.get_device_properties(0).major * 10
memory = torch.cuda.get_device_properties(0).total_memory
