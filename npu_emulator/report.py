"""An optional record of what an emulated process did, written when it exits.

With ``NPU_MIGRATOR_EMULATE_REPORT=<folder>`` every emulated process (children of
launchers included) writes ``<folder>/report-<pid>.json`` holding: which stand-ins were
used (torch_npu, transfer_to_npu, the mx_driving patcher), every autocast region entered
(device, dtype, enabled), the aten ops run on npu tensors with their input dtypes, the
npu cards used, the peak npu memory, the process-group backends created, and notes on
what ran here but needs more on a host (``host_notes``: a torch.compile'd model ran). Tests read
it to check what a run really did without changing the program under test.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from npu_emulator import settings

_EVENTS: Counter[str] = Counter()
_OPS: Counter[str] = Counter()
_AUTOCAST: Counter[str] = Counter()
_DEVICES: set[int] = set()
_HOST_NOTES: set[str] = set()


def note(event: str) -> None:
    """Count a named event (e.g. "transfer_to_npu_applied")."""
    _EVENTS[event] += 1


def host_note(text: str) -> None:
    """Record something that ran here but needs more on a real host (said once)."""
    _HOST_NOTES.add(text)


def snapshot() -> dict[str, Any]:
    """The report as a dict (also what is written at exit)."""
    from npu_emulator import devices, releases, storage

    return {
        "pid": os.getpid(),
        "rank": os.environ.get("RANK"),
        "local_rank": os.environ.get("LOCAL_RANK"),
        "device_count": devices.count(),
        "torch_npu_release": releases.current(),
        "devices_used": sorted(_DEVICES),
        "events": dict(_EVENTS),
        "host_notes": sorted(_HOST_NOTES),
        "autocast": dict(_AUTOCAST),
        "ops": dict(_OPS),
        "peak_memory": {str(i): storage.memory(i).peak_allocated for i in range(devices.count())},
    }


def _count_op(call: Any) -> None:
    # Distinct input dtypes in order of appearance: "aten.mm.default(bfloat16)" means
    # every input was bf16; "aten.mse_loss.default(bfloat16,float32)" means mixed.
    names = dict.fromkeys(str(d).removeprefix("torch.") for d in call.dtypes)
    dtypes = ",".join(names)
    _OPS[f"{call.name}({dtypes})"] += 1
    if call.index is not None:
        _DEVICES.add(call.index)


def _count_autocast() -> None:
    import torch

    autocast_cls: Any = torch.amp.autocast_mode.autocast
    original = autocast_cls.__enter__

    @functools.wraps(original)
    def __enter__(self: Any) -> Any:
        dtype = str(self.fast_dtype).removeprefix("torch.")
        state = "enabled" if self._enabled else "disabled"
        _AUTOCAST[f"{self.device}/{dtype}/{state}"] += 1
        return original(self)

    autocast_cls.__enter__ = __enter__


def _write() -> None:
    folder = Path(os.environ[settings.ENV_REPORT])
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"report-{os.getpid()}.json"
    path.write_text(json.dumps(snapshot(), indent=1, sort_keys=True))


def start() -> None:
    """Record and write the report at exit, if the environment asks for one."""
    if not os.environ.get(settings.ENV_REPORT):
        return
    from npu_emulator import trace

    trace.add_sink(_count_op)
    _count_autocast()
    atexit.register(_write)
