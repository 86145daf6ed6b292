"""The emulated cards: how many there are and which one is current."""

from __future__ import annotations

import torch

from npu_emulator import settings

DEVICE_TYPE = "npu"

_COUNT = settings.visible_device_count()
# Process-wide, unlike CUDA's per-thread current device: PyTorch runs backward in its
# own threads and cannot set their device through a Python backend, so they must see
# the device the program chose.
_CURRENT = [0]
_DEVICES: dict[int, torch.device] = {}


def count() -> int:
    return _COUNT


def current() -> int:
    return _CURRENT[0]


def set_current(index: int) -> None:
    _CURRENT[0] = check(index)


def check(index: int) -> int:
    """Return ``index`` if such a card exists, else fail as a real host would."""
    if not 0 <= index < _COUNT:
        raise RuntimeError(
            f"npu emulator: invalid device npu:{index}: this host has {_COUNT} NPU(s) "
            f"(set {settings.ENV_DEVICES} for more)"
        )
    return index


def index_of(device: object = None) -> int:
    """The card index meant by ``device`` (int, "npu:1", torch.device or None = current)."""
    if device is None:
        return current()
    if isinstance(device, int):
        return check(device)
    dev = torch.device(device) if isinstance(device, str) else device
    if not isinstance(dev, torch.device) or dev.type != DEVICE_TYPE:
        raise ValueError(f"npu emulator: expected an npu device, got {device!r}")
    return current() if dev.index is None else check(dev.index)


def from_dispatcher(device: torch.device) -> int:
    """The card meant by an npu device that reached a kernel.

    Every npu tensor is on ``npu:0`` as far as PyTorch's C++ side knows (see
    tensor.py), so allocations PyTorch makes itself from a tensor's options (autograd,
    DDP buckets) ask for ``npu:0`` and mean "the current card". A program that selected
    ``npu:1`` and then names ``"npu:0"`` explicitly gets ``npu:1`` as well: one process
    works on one card, as data-parallel launchers arrange.
    """
    return current() if not device.index else check(device.index)


def torch_device(index: int) -> torch.device:
    dev = _DEVICES.get(index)
    if dev is None:
        dev = _DEVICES[index] = torch.device(DEVICE_TYPE, index)
    return dev
