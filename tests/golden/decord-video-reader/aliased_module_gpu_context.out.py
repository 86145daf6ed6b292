import decord as dc


def context(device_id):
    return dc.cpu(0)
