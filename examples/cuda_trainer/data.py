"""Synthetic episodes, and an optional video reader for recorded demonstrations."""

import torch
from torch.utils.data import Dataset


class RandomEpisodes(Dataset):
    def __init__(self, size: int = 64, seed: int = 0) -> None:
        generator = torch.Generator().manual_seed(seed)
        self.obs = torch.randn(size, 6, 8, generator=generator)
        self.actions = self.obs.mean(dim=1)[:, :4] * 2.0

    def __len__(self) -> int:
        return len(self.obs)

    def __getitem__(self, index: int):
        return self.obs[index], self.actions[index]


def read_frames(path: str, **reader_kwargs):
    """Decode an mp4 of a demonstration into uint8 frames."""
    import decord

    reader = decord.VideoReader(path, **reader_kwargs)
    return reader.get_batch(range(len(reader))).asnumpy()
