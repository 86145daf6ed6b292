import decord
from decord import VideoReader, cpu


def frames(path):
    return VideoReader(path, ctx=cpu(0)).get_batch([0, 1])
