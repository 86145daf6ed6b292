"""Video decoding for the fixture's dataloader."""

import decord
import numpy as np
import torch


def get_frames(video_path, indices, video_backend_kwargs=None):
    video_backend_kwargs = video_backend_kwargs or {}
    vr = decord.VideoReader(video_path, **{**video_backend_kwargs, "ctx": decord.cpu(0)})
    frames = vr.get_batch(indices).asnumpy()
    return np.asarray(frames)


def to_uint8_frames(frames):
    """[T, C, H, W] floats in [0, 1] -> [T, H, W, C] uint8 numpy frames."""
    return (frames.permute(0, 2, 3, 1) * 255).to(torch.uint8).cpu().numpy()
