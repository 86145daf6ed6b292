import decord
from decord import gpu


def open_video(path, device_id=0):
    reader = decord.VideoReader(path, ctx=decord.gpu(device_id))
    return reader


def open_many(paths, shape):
    contexts = [gpu(0), gpu(1)]
    return decord.VideoLoader(paths, contexts, shape, 1, 0, 0)


def open_positional(path):
    return decord.VideoReader(path, decord.gpu(0))
