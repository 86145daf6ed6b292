"""torch_npu.contrib on the npu-migrator emulator: only transfer_to_npu is provided."""

from __future__ import annotations

import torch_npu  # noqa: F401  (the real package imports its parent first too)
from npu_emulator import stand_ins

__all__ = ["transfer_to_npu"]


def __getattr__(name: str) -> object:
    return stand_ins.missing(__name__, name)
