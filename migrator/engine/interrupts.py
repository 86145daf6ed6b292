"""Signals as exceptions: a run that is killed (SIGTERM, SIGINT) unwinds through its cleanup.

Apart from `migrator.engine.writes` (which it serves) so that every run can set it up
without importing the writing machinery a dry run never uses.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType


class Interrupted(BaseException):
    """SIGTERM or SIGINT arrived; raised where the program is, so cleanup code runs."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Turn SIGTERM and SIGINT into `Interrupted` (once: a second signal while cleaning up
    is ignored, so the cleanup finishes)."""
    seen: list[int] = []

    def handler(signum: int, _frame: FrameType | None) -> None:
        if not seen:
            seen.append(signum)
            raise Interrupted(signum)

    signals = (signal.SIGTERM, signal.SIGINT)
    try:
        previous = [signal.signal(signum, handler) for signum in signals]
    except ValueError:  # not the main thread: leave signals as they are
        yield
        return
    try:
        yield
    finally:
        for signum, old in zip(signals, previous, strict=True):
            signal.signal(signum, old)
