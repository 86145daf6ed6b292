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


def install() -> None:
    if not dist.is_available():
        return
    dist.Backend.register_backend(BACKEND, _create, devices=[devices.DEVICE_TYPE, "cpu"])
