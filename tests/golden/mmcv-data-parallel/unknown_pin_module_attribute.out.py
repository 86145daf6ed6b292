import mmcv.parallel
from mmcv.device.npu import NPUDataParallel


def wrap(model):
    return NPUDataParallel(model, device_ids=[0])
