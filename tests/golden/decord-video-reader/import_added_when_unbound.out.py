from decord import cpu, VideoReader


def open_video(path):
    return VideoReader(path, num_threads=1, ctx=cpu(0))
