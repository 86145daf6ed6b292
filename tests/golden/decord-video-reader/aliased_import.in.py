import decord as de
from decord import VideoReader as VR, cpu as dcpu


def open_video(path):
    return VR(path)


def open_other(path, **kw):
    return de.VideoReader(path, **kw)
