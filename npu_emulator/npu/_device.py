"""Device management of ``torch.npu``: count, current card, properties."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import torch

from npu_emulator import devices

# What an Atlas 800T A2 card reports; code sometimes keys bf16 or memory choices on it.
DEVICE_NAME = "Ascend910B (npu-migrator emulator)"
TOTAL_MEMORY = 64 * 1024**3


@dataclass(frozen=True)
class DeviceProperties:
    name: str
    total_memory: int
    multi_processor_count: int = 24
    cube_core_num: int = 24
    vector_core_num: int = 48


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def init() -> None:
    return None


def _lazy_init() -> None:
    return None


def _is_in_bad_fork() -> bool:
    return False


def _lazy_call(callback: Callable[[], object]) -> None:
    """Run ``callback`` once the device is initialised: the emulated one always is."""
    callback()


def device_count() -> int:
    return devices.count()


def current_device() -> int:
    return devices.current()


def set_device(device: int | str | torch.device) -> None:
    devices.set_current(devices.index_of(device))


def synchronize(device: int | str | torch.device | None = None) -> None:
    # Every op has finished when it returns: the CPU runs them eagerly.
    devices.index_of(device)


def get_device_name(device: int | str | torch.device | None = None) -> str:
    devices.index_of(device)
    return DEVICE_NAME


def get_device_properties(device: int | str | torch.device | None = None) -> DeviceProperties:
    devices.index_of(device)
    return DeviceProperties(name=DEVICE_NAME, total_memory=TOTAL_MEMORY)


class device:
    """Context manager that makes a card current for the block."""

    def __init__(self, device: int | str | torch.device | None) -> None:
        self.index = -1 if device is None else devices.index_of(device)
        self.previous = -1

    def __enter__(self) -> None:
        self.previous = devices.current()
        if self.index >= 0:
            devices.set_current(self.index)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        devices.set_current(self.previous)


class device_of(device):
    """Context manager that makes the card of ``obj`` (a tensor) current."""

    def __init__(self, obj: Any) -> None:
        on_npu = isinstance(obj, torch.Tensor) and obj.device.type == devices.DEVICE_TYPE
        super().__init__(obj.device if on_npu else None)
