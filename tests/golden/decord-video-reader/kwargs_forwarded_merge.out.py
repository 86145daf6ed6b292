import numpy as np

try:
    import decord

    HAVE_DECORD = True
except ImportError:
    HAVE_DECORD = False


def frames_at(video_path, indices, backend="decord", backend_kwargs={}):
    if backend == "decord":
        if not HAVE_DECORD:
            raise ImportError("decord is not available")
        reader = decord.VideoReader(video_path, **{**backend_kwargs, "ctx": decord.cpu(0)})
        return reader.get_batch(indices).asnumpy()
    return np.zeros((len(indices), 1, 1, 3), dtype=np.uint8)
