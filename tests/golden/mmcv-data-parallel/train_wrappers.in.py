import torch
from mmcv.parallel import MMDataParallel, MMDistributedDataParallel


def wrap(model, cfg, distributed):
    if distributed:
        model = MMDistributedDataParallel(
            model.cuda(),
            device_ids=[torch.cuda.current_device()],
            broadcast_buffers=False)
    else:
        model = MMDataParallel(model.cuda(cfg.gpu_ids[0]), device_ids=cfg.gpu_ids)
    return model
