from torch.distributed import init_process_group as init_pg
from torch import distributed as tdist


def init():
    init_pg("hccl")
    tdist.new_group(None, None, "hccl")
