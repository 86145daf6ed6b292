import mmcv.parallel


def wrap(model):
    return mmcv.parallel.MMDataParallel(model, device_ids=[0])
