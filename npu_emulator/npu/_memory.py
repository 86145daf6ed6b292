"""Memory statistics of ``torch.npu``, counted from the host storages behind npu tensors."""

from __future__ import annotations

import torch

from npu_emulator import devices, storage
from npu_emulator.npu._device import TOTAL_MEMORY

Device = int | str | torch.device | None


def memory_allocated(device: Device = None) -> int:
    return storage.memory(devices.index_of(device)).allocated


def max_memory_allocated(device: Device = None) -> int:
    return storage.memory(devices.index_of(device)).peak_allocated


def memory_reserved(device: Device = None) -> int:
    return storage.memory(devices.index_of(device)).reserved


def max_memory_reserved(device: Device = None) -> int:
    return storage.memory(devices.index_of(device)).peak_reserved


def memory_cached(device: Device = None) -> int:
    return memory_reserved(device)


def max_memory_cached(device: Device = None) -> int:
    return max_memory_reserved(device)


def reset_peak_memory_stats(device: Device = None) -> None:
    storage.reset_peaks(devices.index_of(device))


def reset_max_memory_allocated(device: Device = None) -> None:
    reset_peak_memory_stats(device)


def reset_max_memory_cached(device: Device = None) -> None:
    reset_peak_memory_stats(device)


def empty_cache() -> None:
    storage.empty_cache(devices.current())


def mem_get_info(device: Device = None) -> tuple[int, int]:
    """(free, total) bytes of a nominal 64 GiB card."""
    return TOTAL_MEMORY - memory_reserved(device), TOTAL_MEMORY


def memory_stats(device: Device = None) -> dict[str, int]:
    stats = storage.memory(devices.index_of(device))
    return {
        "allocated_bytes.all.current": stats.allocated,
        "allocated_bytes.all.peak": stats.peak_allocated,
        "active_bytes.all.current": stats.allocated,
        "active_bytes.all.peak": stats.peak_allocated,
        "reserved_bytes.all.current": stats.reserved,
        "reserved_bytes.all.peak": stats.peak_reserved,
        "allocation.all.allocated": stats.allocations,
        "allocation.all.freed": stats.frees,
        "num_alloc_retries": 0,
        "num_ooms": 0,
    }


def memory_summary(device: Device = None, abbreviated: bool = False) -> str:
    stats = memory_stats(device)
    lines = [f"npu emulator memory summary (npu:{devices.index_of(device)})"]
    lines += [f"  {key}: {value}" for key, value in stats.items()]
    return "\n".join(lines)
