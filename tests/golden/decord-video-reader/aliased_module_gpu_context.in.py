import decord as dc


def context(device_id):
    return dc.gpu(device_id)
