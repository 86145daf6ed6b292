"""``torch.save`` / ``torch.load`` of npu tensors, with torch_npu's location tags.

A saved npu tensor is an ordinary dense tensor whose storage is tagged ``"npu:N"``, as
torch_npu writes it. Loading then follows PyTorch's own rules: with no ``map_location``
it comes back on ``npu:N``; ``map_location="cpu"`` (or a dict or callable) moves it like
any other storage; ``map_location="npu"`` brings CPU- or CUDA-saved tensors to the npu.
``weights_only=True`` works because nothing but standard rebuild functions is pickled.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch
import torch._utils
from torch import serialization

from npu_emulator import devices, storage
from npu_emulator.tensor import wrap

# Ahead of PyTorch's own taggers (cpu is 10), so npu storages are not tagged "cpu".
_PRIORITY = 5


def _tag(obj: Any) -> str | None:
    if not isinstance(obj, torch.UntypedStorage):
        return None
    index = storage.owner(obj)
    return None if index is None else f"{devices.DEVICE_TYPE}:{index}"


def _restore(obj: Any, location: str) -> Any:
    if not location.startswith(devices.DEVICE_TYPE):
        return None
    device = torch.device(location)
    index = devices.current() if device.index is None else device.index
    if index >= devices.count():
        raise RuntimeError(
            f"Attempting to deserialize object on npu device {index} but "
            f"torch.npu.device_count() is {devices.count()}. Please use torch.load with "
            "map_location to map your storages to an existing device."
        )
    storage.track(obj, index)
    return obj


def install() -> None:
    serialization.register_package(_PRIORITY, _tag, _restore)
    original: Callable[..., torch.Tensor] = torch._utils._rebuild_tensor

    @functools.wraps(original)
    def _rebuild_tensor(
        store: torch.TypedStorage, storage_offset: int, size: Any, stride: Any
    ) -> torch.Tensor:
        tensor = original(store, storage_offset, size, stride)
        index = storage.owner(store._untyped_storage)
        return tensor if index is None else wrap(tensor, index)

    # Every dense-tensor rebuild (v2, v3, parameters) goes through this helper.
    torch._utils._rebuild_tensor = _rebuild_tensor
    # weights_only=True caches its allow-list of rebuild functions; rebuild it with ours.
    from torch import _weights_only_unpickler

    _weights_only_unpickler._get_allowed_globals.cache_clear()
