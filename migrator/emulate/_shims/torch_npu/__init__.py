"""torch_npu on the npu-migrator emulator: importing it turns on the emulated NPU."""

from __future__ import annotations

import importlib.util
import os
import sys

# Child processes find the emulator through the folder the parent recorded.
if importlib.util.find_spec("migrator") is None:
    sys.path.append(os.environ.get("NPU_MIGRATOR_EMULATE_HOME", ""))

from migrator.emulate import stand_ins

stand_ins.init_torch_npu(sys.modules[__name__])


def _autoload() -> None:
    """PyTorch's backend-autoload entry point: importing this module did the work."""


def __getattr__(name: str) -> object:
    return stand_ins.missing(__name__, name)
