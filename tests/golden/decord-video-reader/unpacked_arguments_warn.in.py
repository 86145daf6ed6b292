import decord


def open_video(args, first, second):
    a = decord.VideoReader(*args)
    b = decord.VideoReader(args[0], **first, **second)
    return a, b
