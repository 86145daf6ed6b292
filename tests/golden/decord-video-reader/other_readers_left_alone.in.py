import logging

import torchvision

logger = logging.getLogger(__name__)


class VideoReader:
    def __init__(self, path):
        self.path = path


def open_video(path, decord):
    logger.info("decord.VideoReader(path) decodes on gpu(0) only with a CUDA build")
    local = VideoReader(path)
    tv = torchvision.io.VideoReader(path, "video")
    # `decord` is a parameter here, not the module.
    other = decord.VideoReader(path)
    return local, tv, other
