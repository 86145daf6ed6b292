import decord
import decord.ndarray as dnd


def frames_context(device_id):
    return decord.nd.cpu(0)


def array_context():
    return decord.ndarray.cpu(0)


def aliased_context():
    return dnd.cpu(0)
