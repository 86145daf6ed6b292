import decord
import decord.ndarray as dnd


def frames_context(device_id):
    return decord.nd.gpu(device_id)


def array_context():
    return decord.ndarray.gpu(0)


def aliased_context():
    return dnd.gpu(1)
