"""``torch.accelerator`` answers for the npu from ``torch.npu``.

PyTorch's generic accelerator API asks the C++ device guard, which for a Python backend
always reports one device at index 0. Library code (DataLoader's pin-memory thread,
accelerate) uses this API, so it is pointed at the emulator's own device state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.accelerator
import torch.accelerator.memory

from npu_emulator import devices, npu


def _index(device: Any = None) -> int:
    return devices.index_of(device)


def device_count() -> int:
    return devices.count()


def current_device_index() -> int:
    return devices.current()


def set_device_index(device: Any, /) -> None:
    devices.set_current(_index(device))


def synchronize(device: Any = None, /) -> None:
    npu.synchronize(device)


def memory_allocated(device_index: Any = None, /) -> int:
    return npu.memory_allocated(device_index)


def max_memory_allocated(device_index: Any = None, /) -> int:
    return npu.max_memory_allocated(device_index)


def memory_reserved(device_index: Any = None, /) -> int:
    return npu.memory_reserved(device_index)


def max_memory_reserved(device_index: Any = None, /) -> int:
    return npu.max_memory_reserved(device_index)


def reset_peak_memory_stats(device_index: Any = None, /) -> None:
    npu.reset_peak_memory_stats(device_index)


def empty_cache() -> None:
    npu.empty_cache()


def get_memory_info(device_index: Any = None, /) -> tuple[int, int]:
    return npu.mem_get_info(device_index)


def install() -> None:
    api: Any = torch.accelerator
    routes: tuple[tuple[str, Callable[..., object]], ...] = (
        ("device_count", device_count),
        ("current_device_index", current_device_index),
        ("current_device_idx", current_device_index),
        ("set_device_index", set_device_index),
        ("set_device_idx", set_device_index),
        ("synchronize", synchronize),
    )
    for name, fn in routes:
        setattr(api, name, fn)
    memory: Any = torch.accelerator.memory
    memory_routes: tuple[tuple[str, Callable[..., object]], ...] = (
        ("memory_allocated", memory_allocated),
        ("max_memory_allocated", max_memory_allocated),
        ("memory_reserved", memory_reserved),
        ("max_memory_reserved", max_memory_reserved),
        ("reset_peak_memory_stats", reset_peak_memory_stats),
        ("empty_cache", empty_cache),
        ("get_memory_info", get_memory_info),
    )
    for name, fn in memory_routes:
        setattr(memory, name, fn)
        if hasattr(api, name):
            setattr(api, name, fn)
