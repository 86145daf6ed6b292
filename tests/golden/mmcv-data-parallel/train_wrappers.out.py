import torch
from mmcv.device.npu import NPUDataParallel, NPUDistributedDataParallel


def wrap(model, cfg, distributed):
    if distributed:
        model = NPUDistributedDataParallel(
            model.cuda(),
            device_ids=[torch.cuda.current_device()],
            broadcast_buffers=False)
    else:
        model = NPUDataParallel(model.cuda(cfg.gpu_ids[0]), device_ids=cfg.gpu_ids)
    return model
