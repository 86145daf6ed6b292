"""Streams and events of ``torch.npu``.

Ops run eagerly on the CPU, so every stream is always idle and ordering between streams
holds by construction. Events record a host timestamp so that ``elapsed_time`` gives
wall-clock milliseconds, which is what timing code needs to run; the figures are CPU
times, not NPU times.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import torch

from npu_emulator import devices

Device = int | str | torch.device | None


class Stream:
    """An npu stream; work submitted to it is already complete."""

    def __init__(self, device: Device = None, priority: int = 0) -> None:
        self.device = devices.torch_device(devices.index_of(device))
        self.priority = priority

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def wait_stream(self, stream: Stream) -> None:
        return None

    def wait_event(self, event: Event) -> None:
        return None

    def record_event(self, event: Event | None = None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def __repr__(self) -> str:
        return f"<torch.npu.Stream device={self.device} (npu emulator)>"


class Event:
    """An npu event that completes as soon as it is recorded."""

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ) -> None:
        self.enable_timing = enable_timing
        self._time: float | None = None

    def record(self, stream: Stream | None = None) -> None:
        self._time = time.perf_counter()

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def wait(self, stream: Stream | None = None) -> None:
        return None

    def elapsed_time(self, end_event: Event) -> float:
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0


_LOCAL = threading.local()
_DEFAULT_STREAMS: dict[int, Stream] = {}


def default_stream(device: Device = None) -> Stream:
    index = devices.index_of(device)
    stream = _DEFAULT_STREAMS.get(index)
    if stream is None:
        stream = _DEFAULT_STREAMS[index] = Stream(index)
    return stream


def current_stream(device: Device = None) -> Stream:
    current: Stream | None = getattr(_LOCAL, "stream", None)
    index = devices.index_of(device)
    if current is not None and current.device.index == index:
        return current
    return default_stream(index)


def set_stream(stream: Stream) -> None:
    _LOCAL.stream = stream


@contextlib.contextmanager
def stream(stream: Stream | None) -> Iterator[None]:
    """Make ``stream`` current for the block (``None`` leaves the current one)."""
    previous: Stream | None = getattr(_LOCAL, "stream", None)
    if stream is not None:
        _LOCAL.stream = stream
    try:
        yield
    finally:
        _LOCAL.stream = previous
