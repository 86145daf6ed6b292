from mmcv.parallel import collate
from mmcv.device.npu import NPUDistributedDataParallel


def wrap(model):
    return NPUDistributedDataParallel(model, broadcast_buffers=False)
