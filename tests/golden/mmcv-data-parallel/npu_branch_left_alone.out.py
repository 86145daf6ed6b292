from mmcv.device.npu import NPUDataParallel
from mmcv.parallel import MMDataParallel
from mmcv.utils import IS_NPU_AVAILABLE


def wrap(model):
    if IS_NPU_AVAILABLE:
        return NPUDataParallel(model.npu(), device_ids=[0])
    else:
        return MMDataParallel(model.cuda(), device_ids=[0])
