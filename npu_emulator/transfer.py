"""What ``import torch_npu.contrib.transfer_to_npu`` does: send CUDA calls to the npu.

On an Ascend host the module patches PyTorch at import so that unported CUDA code runs.
The emulator reproduces the parts that decide whether such code runs:

* ``torch.cuda.<name>`` for the device, memory, random, stream and amp functions listed
  in ``CUDA_NAMES`` becomes ``torch.npu.<name>`` (so ``torch.cuda.is_available()`` is
  True afterwards, as on the real host);
* ``"cuda"`` becomes ``"npu"`` in the ``device`` argument of the tensor factories in
  ``FACTORIES``, of ``torch.Generator``, in ``torch.load(map_location=...)``, in
  ``Tensor.to`` / ``Tensor.new_*`` / ``Module.to``, and ``.cuda()`` becomes ``.npu()``;
* ``torch.autocast("cuda")`` becomes ``torch.autocast("npu")``;
* ``init_process_group`` / ``new_group`` with backend ``"nccl"`` get ``"hccl"``, and
  DDP's ``device_ids`` / ``output_device`` are moved to the npu;
* ``torch.jit.script`` returns its argument unchanged (TorchScript is disabled).

Not reproduced: the profiler and the other device arguments of less common APIs
(they pass through unchanged and fail as CUDA calls would). As on the real host,
``torch.amp.GradScaler("cuda")``, ``backend == "nccl"`` comparisons,
``torch.backends.cudnn`` / ``torch.backends.cuda`` flags and environment variables
are left alone: those need the static migration.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

from npu_emulator import devices
from npu_emulator import npu as npu_module

CUDA_NAMES = (
    "is_available",
    "device_count",
    "current_device",
    "set_device",
    "synchronize",
    "device",
    "device_of",
    "get_device_name",
    "get_device_properties",
    "is_initialized",
    "init",
    "empty_cache",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "memory_cached",
    "max_memory_cached",
    "reset_peak_memory_stats",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "memory_stats",
    "memory_summary",
    "mem_get_info",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "get_rng_state_all",
    "set_rng_state_all",
    "is_bf16_supported",
    "Stream",
    "Event",
    "current_stream",
    "default_stream",
    "set_stream",
    "stream",
)

FACTORIES = (
    "tensor",
    "as_tensor",
    "asarray",
    "scalar_tensor",
    "zeros",
    "ones",
    "empty",
    "full",
    "rand",
    "randn",
    "randint",
    "randperm",
    "arange",
    "range",
    "linspace",
    "logspace",
    "eye",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "rand_like",
    "randn_like",
    "randint_like",
    "empty_strided",
    "tril_indices",
    "triu_indices",
    "normal",
    "bartlett_window",
    "blackman_window",
    "hamming_window",
    "hann_window",
    "kaiser_window",
    "sparse_coo_tensor",
)

TENSOR_METHODS = ("new_empty", "new_zeros", "new_ones", "new_full", "new_tensor")


def to_npu(device: Any) -> Any:
    """``"cuda"``/``"cuda:1"``/``torch.device("cuda", 1)`` -> the same npu device."""
    if isinstance(device, str) and device.startswith("cuda"):
        return devices.DEVICE_TYPE + device[len("cuda") :]
    if isinstance(device, torch.device) and device.type == "cuda":
        return torch.device(devices.DEVICE_TYPE, device.index)
    return device


def _with_device_kwarg(fn: Callable[..., Any], name: str = "device") -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if name in kwargs:
            kwargs[name] = to_npu(kwargs[name])
        return fn(*args, **kwargs)

    return wrapper


def _with_first_arg(fn: Callable[..., Any]) -> Callable[..., Any]:
    """For ``x.to("cuda")`` and ``module.to("cuda")``: the device may come first."""

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if args:
            args = (to_npu(args[0]), *args[1:])
        if "device" in kwargs:
            kwargs["device"] = to_npu(kwargs["device"])
        return fn(self, *args, **kwargs)

    return wrapper


def _map_location(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        location = kwargs.get("map_location")
        if isinstance(location, dict):
            kwargs["map_location"] = {k: to_npu(v) for k, v in location.items()}
        elif location is not None:
            kwargs["map_location"] = to_npu(location)
        return fn(*args, **kwargs)

    return wrapper


def _nccl_to_hccl(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if args and args[0] == "nccl":
            args = ("hccl", *args[1:])
        if kwargs.get("backend") == "nccl":
            kwargs["backend"] = "hccl"
        return fn(*args, **kwargs)

    return wrapper


def _patch_cuda_module() -> None:
    cuda: Any = torch.cuda
    for name in CUDA_NAMES:
        setattr(cuda, name, getattr(npu_module, name))
    cuda.amp.autocast = npu_module.amp.autocast
    cuda.amp.GradScaler = npu_module.amp.GradScaler


def _patch_autocast() -> None:
    autocast_cls: Any = torch.amp.autocast_mode.autocast
    original = autocast_cls.__init__

    @functools.wraps(original)
    def __init__(self: Any, device_type: str, *args: Any, **kwargs: Any) -> None:
        # Re-issue autocast's own warnings ("target dtype is not supported. Disabling
        # autocast.") so that they point at the user's line, not at this wrapper.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            original(self, to_npu(device_type), *args, **kwargs)
        for warning in caught:
            warnings.warn(warning.message, warning.category, stacklevel=2)

    autocast_cls.__init__ = __init__


def _patch_ddp() -> None:
    ddp: Any = torch.nn.parallel.DistributedDataParallel
    original = ddp.__init__

    @functools.wraps(original)
    def __init__(self: Any, module: Any, device_ids: Any = None, *args: Any, **kw: Any) -> None:
        if device_ids is not None:
            device_ids = [to_npu(d) for d in device_ids]
        if "output_device" in kw:
            kw["output_device"] = to_npu(kw["output_device"])
        original(self, module, device_ids, *args, **kw)

    ddp.__init__ = __init__


_APPLIED: list[bool] = []


def apply() -> None:
    """Patch PyTorch as ``torch_npu.contrib.transfer_to_npu`` does (idempotent)."""
    if _APPLIED:
        return
    _APPLIED.append(True)
    _patch_cuda_module()
    module: Any = torch
    for name in FACTORIES:
        setattr(module, name, _with_device_kwarg(getattr(torch, name)))
    module.Generator = _with_first_arg_generator(torch.Generator)
    module.load = _map_location(torch.load)
    tensor: Any = torch.Tensor
    tensor.to = _with_first_arg(torch.Tensor.to)
    for name in TENSOR_METHODS:
        setattr(tensor, name, _with_device_kwarg(getattr(torch.Tensor, name)))
    tensor.cuda = tensor.npu
    nn_module: Any = torch.nn.Module
    nn_module.to = _with_first_arg(torch.nn.Module.to)
    nn_module.cuda = nn_module.npu
    _patch_autocast()
    if dist.is_available():
        dist.init_process_group = _nccl_to_hccl(dist.init_process_group)
        dist.new_group = _nccl_to_hccl(dist.new_group)
        _patch_ddp()
    torch.jit.script = _script_disabled


def _with_first_arg_generator(generator_cls: Any) -> Any:
    # torch.Generator is a class that isinstance() checks use: patch its constructor
    # by subclassing, not by replacing it with a function.
    class Generator(generator_cls):  # type: ignore[misc]  # a class known only at run time
        def __new__(cls, device: Any = "cpu") -> Any:
            return generator_cls.__new__(cls, to_npu(device))

    Generator.__qualname__ = Generator.__name__ = "Generator"
    return Generator


def _script_disabled(obj: Any, *args: Any, **kwargs: Any) -> Any:
    return obj
