import decord


def open_video(path):
    return decord.VideoReader(path)


def open_many(paths, shape):
    return decord.VideoLoader(
        paths,
        shape=shape,
        interval=1,
        skip=0,
        shuffle=0,
    )


def open_small(path):
    return decord.VideoReader(path, width=320, height=240)
