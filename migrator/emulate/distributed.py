"""The "hccl" process-group backend, run by gloo on the host.

``init_process_group("hccl")`` (what torch_npu, accelerate and DeepSpeed ask for on
Ascend) gets a gloo process group. Collectives are dispatcher ops, so a collective on
npu tensors reaches the emulator's dispatch like any other op, which hands gloo the CPU
tensors inside; gloo writes its results into them, which is the npu tensors' memory.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import torch.distributed as dist

from migrator.emulate import devices, report

BACKEND = "hccl"


def _create(store: Any, rank: int, world_size: int, timeout: timedelta) -> dist.ProcessGroupGloo:
    report.note(f"process_group_{BACKEND}_world_{world_size}")
    return dist.ProcessGroupGloo(store, rank, world_size, timeout)


def install() -> None:
    if not dist.is_available():
        return
    dist.Backend.register_backend(BACKEND, _create, devices=[devices.DEVICE_TYPE, "cpu"])
