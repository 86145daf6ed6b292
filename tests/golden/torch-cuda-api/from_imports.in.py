import torch.cuda
from torch.cuda import empty_cache, device_count as count
from torch.cuda.amp import custom_fwd, custom_bwd
from torch.cuda import nvtx
from torch.cuda import synchronize, graph


def clean():
    empty_cache()
    torch.cuda.synchronize()
    return count()
