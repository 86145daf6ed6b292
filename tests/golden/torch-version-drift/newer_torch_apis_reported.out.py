import torch as th
import torch_npu
from torch.accelerator import device_index, device_count

index = th.accelerator.device_index()
used = th.accelerator.memory.memory_allocated()
th.npu.host_empty_cache()
out = torch_npu.npu_add_rms_norm_v2(x, residual, weight)
with th.cuda.amp.autocast_everywhere():
    pass
