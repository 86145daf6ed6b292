import torch
import torch_npu

# In torch-npu 2.7.1.post11, not in post2.
torch.npu.host_empty_cache()
out = torch_npu.npu_add_rms_norm_v2(x, residual, weight)
