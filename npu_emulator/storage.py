"""Which host storages back npu tensors: the source of memory statistics and save tags.

Every npu tensor holds a CPU tensor; its storage is registered here with the npu index
it belongs to. Storages are tracked by object (PyTorch keeps one Python object per live
storage), so views share one entry and an entry disappears when the storage is freed.
The byte counts are taken when a storage is first seen; a later in-place resize is not
followed, so the statistics are close to, not exactly, what a caching allocator reports.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import torch


@dataclass
class DeviceMemory:
    """Counters for one emulated card, in bytes."""

    allocated: int = 0
    peak_allocated: int = 0
    reserved: int = 0
    peak_reserved: int = 0
    allocations: int = 0
    frees: int = 0


@dataclass
class _Registry:
    owners: weakref.WeakKeyDictionary[torch.UntypedStorage, int] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    memory: dict[int, DeviceMemory] = field(default_factory=dict)


_REGISTRY = _Registry()


def memory(index: int) -> DeviceMemory:
    """The counters of card ``index`` (created on first use)."""
    stats = _REGISTRY.memory.get(index)
    if stats is None:
        stats = _REGISTRY.memory[index] = DeviceMemory()
    return stats


def track(store: torch.UntypedStorage, index: int) -> None:
    """Record that ``store`` now backs npu memory on card ``index``."""
    if store in _REGISTRY.owners:
        return
    _REGISTRY.owners[store] = index
    nbytes = store.nbytes()
    stats = memory(index)
    stats.allocated += nbytes
    stats.allocations += 1
    stats.peak_allocated = max(stats.peak_allocated, stats.allocated)
    # A caching allocator keeps freed blocks until empty_cache(): reserved only grows.
    stats.reserved = max(stats.reserved, stats.allocated)
    stats.peak_reserved = max(stats.peak_reserved, stats.reserved)
    weakref.finalize(store, _release, index, nbytes)


def _release(index: int, nbytes: int) -> None:
    stats = memory(index)
    stats.allocated -= nbytes
    stats.frees += 1


def owner(store: torch.UntypedStorage) -> int | None:
    """The npu index whose memory ``store`` is, or None for plain host memory."""
    return _REGISTRY.owners.get(store)


def empty_cache(index: int) -> None:
    """Hand cached blocks back: reserved memory falls to what is allocated."""
    stats = memory(index)
    stats.reserved = stats.allocated


def reset_peaks(index: int) -> None:
    stats = memory(index)
    stats.peak_allocated = stats.allocated
    stats.peak_reserved = stats.reserved
