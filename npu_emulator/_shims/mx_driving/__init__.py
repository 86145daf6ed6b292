"""mx_driving on the npu-migrator emulator: the patcher entry point only.

Like the real package, importing it imports torch_npu and transfer_to_npu first.
"""

from __future__ import annotations

import torch_npu
import torch_npu.contrib.transfer_to_npu  # noqa: F401

from mx_driving.patcher import default_patcher_builder
from npu_emulator import stand_ins

__all__ = ["default_patcher_builder"]


def __getattr__(name: str) -> object:
    return stand_ins.missing(__name__, name)
