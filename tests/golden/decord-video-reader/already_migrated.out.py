import decord
from decord import VideoReader, cpu


def open_video(path, **kw):
    a = decord.VideoReader(path, ctx=decord.cpu(0))
    b = VideoReader(path, cpu(0))
    c = decord.VideoReader(path, **{**kw, "ctx": decord.cpu(0)})
    return a, b, c
