from mmcv.parallel import MMDataParallel


def wrap(model):
    return MMDataParallel(model, device_ids=[0])
