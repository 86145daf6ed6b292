"""Autocast kernels for the npu device (PyTorch's ``AutocastPrivateUse1`` key).

Entering ``torch.autocast("npu", ...)`` only sets a flag; the casting is done by kernels
registered on the autocast dispatch key, which torch_npu provides in C++ and PyTorch
does not for PrivateUse1. These Python kernels apply the policies of autocast_ops.py and
then call the op again below the autocast key. Casts are not cached across ops as the
C++ autocast does for weights; that changes speed, not results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch._ops import OpOverload

from npu_emulator import _torch, autocast_ops, devices

_KEY = "AutocastPrivateUse1"
_BELOW = _torch.dispatch_key_set(_KEY)


def _eligible(value: object) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and value.is_floating_point()
        and value.dtype != torch.float64
        and value.device.type == devices.DEVICE_TYPE
    )


def _cast(value: Any, dtype: torch.dtype) -> Any:
    if _eligible(value):
        return value if value.dtype == dtype else value.to(dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    return value


def _tensors(values: Any) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []
    for value in values:
        if _eligible(value):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(_tensors(value))
    return found


Kernel = Callable[..., Any]


def _lower_precision(op: OpOverload) -> Kernel:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        dtype = torch.get_autocast_dtype(devices.DEVICE_TYPE)
        with torch._C._ExcludeDispatchKeyGuard(_BELOW):
            return op(*_cast(args, dtype), **_cast(kwargs, dtype))

    return kernel


def _float32(op: OpOverload) -> Kernel:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        with torch._C._ExcludeDispatchKeyGuard(_BELOW):
            return op(*_cast(args, torch.float32), **_cast(kwargs, torch.float32))

    return kernel


def _float32_unless_dtype(op: OpOverload) -> Kernel:
    # `dtype` is positional in softmax/log_softmax (`log_softmax(x, 1, torch.float32)`,
    # and how cross_entropy calls it, with None) and keyword-only in sum/cumsum/prod: a
    # dtype already passed by position is kept, or filled in where it is None.
    names = [argument.name for argument in op._schema.arguments]
    position = names.index("dtype")

    def kernel(*args: Any, **kwargs: Any) -> Any:
        with torch._C._ExcludeDispatchKeyGuard(_BELOW):
            if args and _eligible(args[0]):
                if position < len(args):
                    if args[position] is None:
                        args = (*args[:position], torch.float32, *args[position + 1 :])
                elif kwargs.get("dtype") is None:
                    kwargs = {**kwargs, "dtype": torch.float32}
            return op(*args, **kwargs)

    return kernel


def _promote(op: OpOverload) -> Kernel:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        with torch._C._ExcludeDispatchKeyGuard(_BELOW):
            tensors = _tensors(list(args) + list(kwargs.values()))
            if not tensors:
                return op(*args, **kwargs)
            widest = tensors[0].dtype
            for tensor in tensors[1:]:
                widest = torch.promote_types(widest, tensor.dtype)
            return op(*_cast(args, widest), **_cast(kwargs, widest))

    return kernel


def _banned(op: OpOverload) -> Kernel:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to "
            "autocast. Many models use a sigmoid layer right before the binary cross entropy "
            "layer. In this case, combine the two layers using "
            "torch.nn.functional.binary_cross_entropy_with_logits or torch.nn.BCEWithLogitsLoss."
        )

    return kernel


POLICIES: tuple[tuple[tuple[str, ...], Callable[[OpOverload], Kernel]], ...] = (
    (autocast_ops.LOWER_PRECISION, _lower_precision),
    (autocast_ops.FLOAT32, _float32),
    (autocast_ops.FLOAT32_UNLESS_DTYPE, _float32_unless_dtype),
    (autocast_ops.PROMOTE, _promote),
    (autocast_ops.BANNED, _banned),
)


_LIBRARY: list[Any] = []


def register() -> None:
    # Ops outside the lists pass through untouched. PyTorch 2.13 registers no such
    # fallthrough for AutocastPrivateUse1, so without it every other op would fail
    # inside an npu autocast region.
    passthrough = _torch.library("_", "IMPL")
    passthrough.fallback(torch.library.fallthrough_kernel, _KEY)
    library = _torch.library("aten", "IMPL")
    for names, policy in POLICIES:
        for name in names:
            library.impl(name, policy(_torch.aten_op(name)), _KEY)
    _LIBRARY.extend((passthrough, library))
