"""Register "npu" with PyTorch as its PrivateUse1 device.

After :func:`register`, ``torch.device("npu:0")``, ``tensor.npu()``, ``module.npu()``,
``torch.npu`` and ``torch.accelerator`` know the device, and any factory call with
``device="npu"`` reaches :func:`npu_emulator.dispatch.execute` through a fallback
kernel on the PrivateUse1 dispatch key.
"""

from __future__ import annotations

import functools
import sys
from types import ModuleType
from typing import Any

import torch
from torch._ops import OpOverload
from torch.utils.backend_registration import (
    generate_methods_for_privateuse1_backend,
    rename_privateuse1_backend,
)

from npu_emulator import _torch, devices
from npu_emulator.dispatch import execute


class _Hooks(torch._C._acc.PrivateUse1Hooks):
    """What PyTorch asks a backend in C++ (torch.accelerator, lazy init)."""

    def is_available(self) -> bool:
        return True

    def has_primary_context(self, device_index: int) -> bool:
        return True

    def is_built(self) -> bool:
        return True


class _Guard(torch._C._acc.DeviceGuard):
    def type_(self) -> Any:
        return torch._C._autograd.DeviceType.PrivateUse1


def _kernel(op: OpOverload, *args: Any, **kwargs: Any) -> Any:
    return execute(op, args, kwargs)


# Some C++ paths run with the Python dispatch key excluded (torch.tensor(data,
# device="npu") copies into the new tensor that way), and PyTorch 2.13 cannot call a
# Python *fallback* then; kernels registered per op still work. These are the ops such
# paths use.
_PER_OP = (
    "empty.memory_format",
    "empty_strided",
    "copy_",
    "_copy_from",
    "_copy_from_and_resize",
    "_to_copy",
    "detach",
    "alias",
    "view",
    "as_strided",
    "clone",
    "lift_fresh",
    "fill_.Scalar",
    "zero_",
    "resize_",
)


# The Library must stay alive: dropping it unregisters the fallback.
_LIBRARY: list[Any] = []


def register(npu_module: ModuleType) -> None:
    """Make "npu" a device of this process, served by ``npu_module`` as ``torch.npu``."""
    rename_privateuse1_backend(devices.DEVICE_TYPE)
    _torch.register_device_module(devices.DEVICE_TYPE, npu_module)
    # `import torch.npu.random` (or .amp) must find the modules torch.npu already holds,
    # not load second copies of them from the package folder.
    for name in ("amp", "random"):
        sys.modules[f"torch.{devices.DEVICE_TYPE}.{name}"] = getattr(npu_module, name)
    # Storages stay on the host, so no storage.npu() method is generated.
    generate_methods_for_privateuse1_backend(
        for_tensor=True, for_module=True, for_packed_sequence=True, for_storage=False
    )
    torch._C._acc.register_python_privateuseone_hook(_Hooks())
    torch._C._acc.register_python_privateuseone_device_guard(_Guard())
    fallback = _torch.library("_", "IMPL")
    fallback.fallback(_kernel, dispatch_key="PrivateUse1")
    per_op = _torch.library("aten", "IMPL")
    for name in _PER_OP:
        per_op.impl(name, functools.partial(_kernel, _torch.aten_op(name)), "PrivateUse1")
    _LIBRARY.extend((fallback, per_op))
