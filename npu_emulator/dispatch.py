"""Run an aten op that involves the npu device on the CPU, with a device's semantics.

Used for every op that has an npu tensor among its arguments (through
``NpuTensor.__torch_dispatch__``) and for every op that creates a tensor with
``device="npu"`` (through a fallback on PyTorch's PrivateUse1 dispatch key). The op
runs on the CPU tensors inside, and new results are wrapped as npu tensors again.

What makes it behave like a device rather than like the CPU:

* tensors on different devices in one op fail as on CUDA or Ascend, except 0-dim CPU
  tensors (scalars) and the ops that legitimately mix devices (copies, indexing);
* random ops draw from the card's own generator;
* in-place and ``out=`` ops return the very tensor that was passed in.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch._ops import OpOverload

from npu_emulator import devices, distributed, releases, report, rng, rnn_ops, trace
from npu_emulator.tensor import NpuTensor, refresh, wrap

aten = torch.ops.aten

# Ops whose arguments may sit on different devices on a real device backend too.
_MIXED_DEVICE_OPS = frozenset(
    {
        aten.copy_.default,
        aten._copy_from.default,
        aten._copy_from_and_resize.default,
        aten._to_copy.default,
        aten.index.Tensor,
        aten.index_put_.default,
        aten.index_put.default,
        aten._index_put_impl_.default,
    }
)
# Kernels that draw from the default generator of the device without a generator argument.
_IMPLICIT_RNG_OPS = frozenset({aten.native_dropout.default})


@dataclass(frozen=True)
class _Plan:
    """What execute() needs to know about one op, computed once per op."""

    device_args: tuple[tuple[int, str], ...]  # (position, name) of Device arguments
    takes_generator: bool
    mixed_devices_ok: bool
    implicit_rng: bool
    collective: bool
    view: bool
    fused_optimizer: str | None  # "_fused_adam_" etc.: their NPU kernels vary by release


@functools.cache
def _plan(func: OpOverload) -> _Plan:
    arguments = func._schema.arguments
    return _Plan(
        device_args=tuple(
            (i, a.name)
            for i, a in enumerate(arguments)
            if str(a.type) in ("Device", "Optional[Device]")
        ),
        takes_generator=any(a.name == "generator" for a in arguments),
        mixed_devices_ok=func in _MIXED_DEVICE_OPS,
        implicit_rng=func in _IMPLICIT_RNG_OPS,
        collective=distributed.is_collective(func._schema.name),
        view=func.is_view,
        fused_optimizer=_fused_optimizer(func),
    )


def _fused_optimizer(func: OpOverload) -> str | None:
    name = func._schema.name.removeprefix("aten::")
    return name if name in releases.FUSED_OPTIMIZER_OPS else None


_FELL_BACK: set[str] = set()


def _cpu_fallback(func: OpOverload, name: str) -> None:
    """Warn, once per op, where the target release has no NPU kernel for a fused optimizer.

    The host runs the op anyway through torch_npu's CPU fallback (copying the optimizer
    state to the host and back every step) with this warning, its npu_cpu_fallback text.
    """
    release = releases.current()
    overload = f".{func._overloadname}" if func._overloadname != "default" else ""
    if releases.has_npu_kernel(release, name, func._overloadname) or name + overload in _FELL_BACK:
        return
    _FELL_BACK.add(name + overload)
    report.note(f"cpu_fallback_aten::{name}{overload}")
    report.host_note(
        f"aten::{name} has no NPU kernel in torch-npu {release}: it ran on the CPU, "
        "copying the optimizer state every step"
    )
    warnings.warn(
        f"CAUTION: The operator 'aten::{name}{overload}' is not currently supported on the "
        "NPU backend and will fall back to run on the CPU. This may have performance "
        f"implications. (npu emulator: torch-npu {release} has no NPU kernel for it)",
        UserWarning,
        stacklevel=2,
    )


class _Unwrapper:
    """Replaces npu tensors by their CPU tensors and notes the devices seen."""

    __slots__ = ("aliases", "cpu_tensor", "indices")

    def __init__(self) -> None:
        self.indices: list[int] = []
        self.cpu_tensor = False
        # id(tensor handed to the kernel) -> the tensor the caller passed
        self.aliases: dict[int, torch.Tensor] = {}

    def __call__(self, value: Any) -> Any:
        if isinstance(value, NpuTensor):
            if value._npu_index not in self.indices:
                self.indices.append(value._npu_index)
            inner = value._inner
            self.aliases[id(inner)] = value
            return inner
        if isinstance(value, torch.Tensor):
            if value.dim() > 0 and value.device.type == "cpu":
                self.cpu_tensor = True
            self.aliases[id(value)] = value
            return value
        if isinstance(value, (list, tuple)):
            return type(value)(self(v) for v in value)
        return value


def _device_error(func: OpOverload, seen: _Unwrapper) -> RuntimeError:
    names = [f"npu:{i}" for i in seen.indices] + (["cpu"] if seen.cpu_tensor else [])
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{names[0]} and {names[1]}! (npu emulator, in {func})"
    )


#: torch_npu's message, from its ``to(dtype)`` kernel (``ToKernelNpu.cpp`` in the wheels:
#: a cast to double with no device or layout becomes a cast to float, TORCH_NPU_WARN_ONCE).
DOUBLE_MESSAGE = "Device do not support double dtype now, dtype cast replace with float."
_WARNED_DOUBLE: list[bool] = []


def _double_to_float(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``x.double()`` / ``x.to(torch.float64)`` of an npu tensor: float32, as on a host."""
    if kwargs.get("dtype") is not torch.float64 or any(
        kwargs.get(name) is not None for name in ("device", "layout")
    ):
        return kwargs
    if not _WARNED_DOUBLE:
        _WARNED_DOUBLE.append(True)
        warnings.warn(DOUBLE_MESSAGE, UserWarning, stacklevel=2)
    return {**kwargs, "dtype": torch.float32}


def execute(func: OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    plan = _plan(func)
    if func is aten._to_copy.default and args and isinstance(args[0], NpuTensor):
        kwargs = _double_to_float(kwargs)
    seen = _Unwrapper()
    cpu_args = list(seen(args))
    cpu_kwargs = {key: seen(value) for key, value in kwargs.items()}
    if not plan.mixed_devices_ok and (len(seen.indices) > 1 or (seen.indices and seen.cpu_tensor)):
        raise _device_error(func, seen)

    # Where results go: the device an explicit Device argument names, else the inputs'.
    target: int | None = seen.indices[0] if seen.indices else None
    for position, name in plan.device_args:
        in_args = position < len(cpu_args)
        value = cpu_args[position] if in_args else cpu_kwargs.get(name)
        if value is None:
            continue
        device = torch.device(value)
        if device.type == devices.DEVICE_TYPE:
            target = devices.from_dispatcher(device)
            device = torch.device("cpu")
        else:
            target = None
        if in_args:
            cpu_args[position] = device
        else:
            cpu_kwargs[name] = device

    if plan.takes_generator and target is not None:
        generator = cpu_kwargs.get("generator")
        if generator is None:
            cpu_kwargs["generator"] = rng.default_generator(target)
        elif rng.npu_index(generator) is None:
            raise RuntimeError(
                f"Expected a 'npu' device type for generator but found '{generator.device}'"
            )

    if plan.fused_optimizer is not None:
        _cpu_fallback(func, plan.fused_optimizer)
    if trace.active():
        trace.record(str(func), cpu_args + list(cpu_kwargs.values()), target)

    kernel: Callable[..., Any] = rnn_ops.KERNELS.get(func, func)
    if plan.implicit_rng and target is not None:
        with rng.default_cpu_rng_as(target):
            result = kernel(*cpu_args, **cpu_kwargs)
    else:
        result = kernel(*cpu_args, **cpu_kwargs)
    if plan.collective:
        distributed.complete(result)
    # An op that names another device than its inputs' moved data (`to("cpu")`): a
    # result that is one of its arguments must then be copied, never aliased.
    moved = target != (seen.indices[0] if seen.indices else None)
    if plan.view and torch.is_inference_mode_enabled() and _has_normal_tensor(args):
        # A view of a normal tensor made in inference mode is a normal tensor sharing
        # its base's version counter (PyTorch's inference-mode rules); a wrapper made
        # here would be an inference tensor, which the view machinery above refuses
        # ("Cannot set version_counter for inference tensor").
        with torch.inference_mode(False):
            return _rewrap(result, target, seen.aliases, moved)
    return _rewrap(result, target, seen.aliases, moved)


def _has_normal_tensor(args: tuple[Any, ...]) -> bool:
    return any(isinstance(a, NpuTensor) and not a.is_inference() for a in args)


def _rewrap(value: Any, target: int | None, aliases: dict[int, torch.Tensor], moved: bool) -> Any:
    if isinstance(value, torch.Tensor):
        original = aliases.get(id(value))
        if original is not None and moved:
            value, original = value.clone(), None
        if original is not None:
            # In-place ops, out= and no-op views hand back an argument: return the
            # caller's tensor itself, refreshed if the op changed its shape.
            if isinstance(original, NpuTensor) and (
                original.shape != value.shape
                or original.stride() != value.stride()
                or original.storage_offset() != value.storage_offset()
            ):
                refresh(original, value)
            return original
        return value if target is None else wrap(value, target)
    if isinstance(value, (list, tuple)):
        return type(value)(_rewrap(v, target, aliases, moved) for v in value)
    return value
