"""The "hccl" process-group backend, run by gloo on the host.

``init_process_group("hccl")`` (what torch_npu, accelerate and DeepSpeed ask for on
Ascend) gets a gloo process group. Collectives are dispatcher ops, so a collective on
npu tensors reaches the emulator's dispatch like any other op, which hands gloo the CPU
tensors inside; gloo writes its results into them, which is the npu tensors' memory.

On a device, collectives run in order on a stream, and every kernel queued after one
sees its result: code may wait on only the last of several async collectives, or read a
result after `synchronize()` alone (DeepSpeed's ZeRO-3 does both). Gloo runs async work
on its own threads, out of order, so the emulator completes each collective on npu
tensors before handing back its work handle; point-to-point sends and receives stay
asynchronous, since a blocking send would deadlock the exchanges code builds from them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist

from npu_emulator import devices, report

BACKEND = "hccl"
# Point-to-point ops: left asynchronous (see above).
_POINT_TO_POINT = frozenset({"c10d::send", "c10d::recv_", "c10d::recv_any_source_"})


def is_collective(name: str) -> bool:
    """Whether the dispatcher op ``name`` (``c10d::allreduce_``) is a collective."""
    return name.startswith("c10d::") and name not in _POINT_TO_POINT


def complete(result: Any) -> None:
    """Wait for the work handle in a collective's ``result``, as a stream would order it."""
    items = result if isinstance(result, (tuple, list)) else (result,)
    for item in items:
        if isinstance(item, torch.ScriptObject):
            dist.Work.unbox(item).wait()


def _create(store: Any, rank: int, world_size: int, timeout: timedelta) -> dist.ProcessGroupGloo:
    report.note(f"process_group_{BACKEND}_world_{world_size}")
    return dist.ProcessGroupGloo(store, rank, world_size, timeout)


# torch.distributed functions that take tensors and a group. torch_npu registers hccl for
# the "npu" device only (torch_npu/__init__.py), so on a host a collective on CPU tensors
# in an hccl group finds no backend. The emulator's gloo group must also serve "cpu" (the
# npu tensors' data reaches gloo as CPU tensors), so the host's refusal is checked here.
_TENSOR_COLLECTIVES = (
    "all_reduce",
    "all_gather",
    "all_gather_into_tensor",
    "_all_gather_base",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "_reduce_scatter_base",
    "broadcast",
    "reduce",
    "all_to_all",
    "all_to_all_single",
    "gather",
    "scatter",
    "send",
    "recv",
    "isend",
    "irecv",
)


def _cpu_tensor(value: object) -> bool:
    if isinstance(value, torch.Tensor):
        return value.device.type == "cpu"
    if isinstance(value, (list, tuple)):
        return any(_cpu_tensor(v) for v in value)
    return False


def _npu_only(function: Callable[..., Any]) -> Callable[..., Any]:
    signature = inspect.signature(function)

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind_partial(*args, **kwargs).arguments
        if any(_cpu_tensor(v) for v in bound.values()):
            group = bound.get("group")
            if dist.is_initialized() and dist.get_backend(group) == BACKEND:
                raise RuntimeError("No backend type associated with device type cpu")
        return function(*args, **kwargs)

    return checked


def install() -> None:
    if not dist.is_available():
        return
    dist.Backend.register_backend(BACKEND, _create, devices=[devices.DEVICE_TYPE, "cpu"])
    for name in _TENSOR_COLLECTIVES:
        function = getattr(dist, name, None)
        if function is not None:
            setattr(dist, name, _npu_only(function))
