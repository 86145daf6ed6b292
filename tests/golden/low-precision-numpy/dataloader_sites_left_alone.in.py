import numpy as np
import pandas as pd
import torch


def read_frames(frames, as_pil=False):
    if isinstance(frames, torch.Tensor):
        frames = frames.cpu().numpy()
    return frames


def to_uint8(frames):
    return (frames.permute(0, 2, 3, 1) * 255).to(torch.uint8).cpu().numpy()


def columns(table: pd.DataFrame, value: torch.Tensor):
    xs = table["x"].to_numpy()
    return xs, value.numpy(), np.asarray(xs)
