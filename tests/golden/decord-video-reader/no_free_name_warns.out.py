from decord import VideoReader


def open_video(path, cpu):
    # `cpu` is a parameter here: decord's cpu cannot be named.
    return VideoReader(path)
