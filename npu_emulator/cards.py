"""Explicit card indices: ``device="npu:0"`` lands on card 0 whatever card is current.

PyTorch's C++ side sees every npu tensor on ``npu:0`` (a Python backend's device guard
reports one device; see tensor.py), so a kernel asked for ``npu:0`` cannot tell an
explicit ``"npu:0"`` from PyTorch's own allocations, which mean "the current card"
(devices.from_dispatcher). The Python entry points that take a device, the tensor
factories, ``Tensor.to`` / ``Tensor.new_*`` and through them ``Module.to`` and module
constructors (``nn.Linear(..., device="npu:0")``), are therefore wrapped: an explicit npu
index other than the current card is made current for the duration of the call, as
``NpuTensor.to`` does for copies between cards. Then mixing cards fails as on a host.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch

from npu_emulator import devices
from npu_emulator.transfer import FACTORIES, TENSOR_METHODS


def _explicit_index(device: Any) -> int | None:
    """The card an npu device argument names explicitly (``"npu:1"``), else None."""
    if isinstance(device, str):
        if not device.startswith(devices.DEVICE_TYPE + ":"):
            return None
        device = torch.device(device)
    if isinstance(device, torch.device) and device.type == devices.DEVICE_TYPE:
        return device.index
    return None


def _run_on(index: int | None, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    previous = devices.current()
    if index is None or index == previous:
        return function(*args, **kwargs)
    devices.set_current(index)
    try:
        return function(*args, **kwargs)
    finally:
        devices.set_current(previous)


def _device_keyword(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        return _run_on(_explicit_index(kwargs.get("device")), function, *args, **kwargs)

    return call


def _tensor_to(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def to(self: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        device = kwargs.get("device", args[0] if args else None)
        return _run_on(_explicit_index(device), function, self, *args, **kwargs)

    return to


def _scripted_as_builtin(wrapper: Callable[..., Any], name: str) -> None:
    # TorchScript maps torch's functions to aten ops by identity; a wrapper it does not
    # know it would try to compile from source (and fail), so it is registered as the op.
    builtins: Any = torch.jit._builtins
    if builtins._builtin_table is None:
        builtins._builtin_ops.append((wrapper, f"aten::{name}"))
    else:
        builtins._register_builtin(wrapper, f"aten::{name}")


def install() -> None:
    module: Any = torch
    for name in FACTORIES:
        wrapper = _device_keyword(getattr(torch, name))
        setattr(module, name, wrapper)
        _scripted_as_builtin(wrapper, name)
    tensor: Any = torch.Tensor
    tensor.to = _tensor_to(torch.Tensor.to)
    for name in TENSOR_METHODS:
        setattr(tensor, name, _device_keyword(getattr(torch.Tensor, name)))
