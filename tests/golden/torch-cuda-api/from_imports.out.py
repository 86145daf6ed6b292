import torch.cuda
from torch.npu import empty_cache, device_count as count
from torch.npu.amp import custom_fwd, custom_bwd
from torch.cuda import nvtx
from torch.cuda import synchronize, graph


def clean():
    empty_cache()
    torch.npu.synchronize()
    return count()
