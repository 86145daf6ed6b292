from decord import VideoReader


def open_video(path):
    return VideoReader(path, num_threads=1)
