"""mx_driving.patcher on the npu-migrator emulator: ``default_patcher_builder``."""

from __future__ import annotations

from npu_emulator import stand_ins
from npu_emulator.patcher import Patcher, PatcherBuilder, default_patcher_builder

__all__ = ["Patcher", "PatcherBuilder", "default_patcher_builder"]


def __getattr__(name: str) -> object:
    return stand_ins.missing(__name__, name)
