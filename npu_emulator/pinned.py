"""Page-locked host memory: ``Tensor.pin_memory()`` and ``Tensor.is_pinned()``.

PyTorch pins memory through the accelerator's allocator, which a Python backend cannot
provide. Host memory is host memory here, so pinning makes the same contiguous copy a
real pin would and remembers its storage as pinned; DataLoader(pin_memory=True) and
``.to("npu", non_blocking=True)`` then take the same path as on an Ascend host.
"""

from __future__ import annotations

import weakref
from typing import Any

import torch

from npu_emulator.tensor import NpuTensor

_PINNED: weakref.WeakSet[torch.UntypedStorage] = weakref.WeakSet()
_ORIGINAL: dict[str, Any] = {}


def is_pinned(self: torch.Tensor, device: Any = None) -> bool:
    if isinstance(self, NpuTensor) or self.device.type != "cpu":
        return False
    return self.untyped_storage() in _PINNED


def pin_memory(self: torch.Tensor, device: Any = None) -> torch.Tensor:
    if isinstance(self, NpuTensor):
        raise RuntimeError(
            f"cannot pin '{self.device}' memory: only dense CPU tensors can be pinned"
        )
    if self.device.type != "cpu" or self.layout != torch.strided:
        original: Any = _ORIGINAL["pin_memory"]
        result: torch.Tensor = original(self)
        return result
    if is_pinned(self):
        return self
    pinned = self.clone(memory_format=torch.preserve_format)
    _PINNED.add(pinned.untyped_storage())
    return pinned


def install() -> None:
    _ORIGINAL["pin_memory"] = torch.Tensor.pin_memory
    _ORIGINAL["is_pinned"] = torch.Tensor.is_pinned
    # Replacing methods of torch.Tensor is the point; the stubs call that an error.
    torch.Tensor.pin_memory = pin_memory  # type: ignore[method-assign,assignment]
    torch.Tensor.is_pinned = is_pinned  # type: ignore[method-assign,assignment]
