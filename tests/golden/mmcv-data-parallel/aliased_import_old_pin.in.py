from mmcv.parallel import MMDistributedDataParallel as DDP
from mmcv.parallel import collate


def wrap(model):
    return DDP(model, broadcast_buffers=False)
