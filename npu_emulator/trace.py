"""Observe which aten ops run on npu tensors, and in which dtypes.

Tests and smoke runs use this to see what a real NPU would have been asked to do: that
``AdamW(fused=True)`` reached ``aten._fused_adamw_``, that a matmul inside a bf16
autocast region got bf16 inputs, and so on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class OpCall:
    """One aten op that ran on the emulated device."""

    name: str  # e.g. "aten.mm.default"
    dtypes: tuple[torch.dtype, ...]  # dtypes of the tensor inputs (lists flattened), in order
    index: int | None  # the npu card it ran on (None: it left the npu, e.g. .cpu())


class OpLog(list[OpCall]):
    """The calls recorded by :func:`record_ops`, in order."""

    def names(self) -> list[str]:
        return [call.name for call in self]

    def calls(self, prefix: str) -> list[OpCall]:
        """Calls whose name starts with ``prefix`` ("aten.mm" matches "aten.mm.default")."""
        return [call for call in self if call.name.startswith(prefix)]


Sink = Callable[[OpCall], None]
_SINKS: list[Sink] = []


def active() -> bool:
    return bool(_SINKS)


def _dtypes(values: list[object] | tuple[object, ...]) -> list[torch.dtype]:
    found: list[torch.dtype] = []
    for value in values:
        if isinstance(value, torch.Tensor):
            found.append(value.dtype)
        elif isinstance(value, (list, tuple)):
            found.extend(_dtypes(value))
    return found


def record(name: str, inputs: list[object], index: int | None) -> None:
    call = OpCall(name, tuple(_dtypes(inputs)), index)
    for sink in _SINKS:
        sink(call)


def add_sink(sink: Sink) -> None:
    _SINKS.append(sink)


@contextlib.contextmanager
def record_ops() -> Iterator[OpLog]:
    """Collect every aten op that runs on an npu tensor inside the ``with`` block."""
    log = OpLog()
    _SINKS.append(log.append)
    try:
        yield log
    finally:
        _SINKS.remove(log.append)
