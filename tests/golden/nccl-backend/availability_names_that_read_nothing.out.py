from torch.distributed import is_nccl_available
from torch.distributed import is_nccl_available as nccl_ok


def configure(flag, is_nccl_available=None):
    global nccl_ok
    return make(is_nccl_available=flag, nccl_ok=flag)


class Probe:
    def is_nccl_available(self):
        return False


def pick():
    if nccl_ok():
        return "hccl"
    return "gloo"
