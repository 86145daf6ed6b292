from mmcv.parallel import MMDataParallel

NPUDataParallel = None


def wrap(model):
    return MMDataParallel(model, device_ids=[0])
