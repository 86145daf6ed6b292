"""torch_npu on the npu-migrator emulator: importing it turns on the emulated NPU."""

from __future__ import annotations

import importlib.util
import os
import sys

# Child processes find the emulator through the folder the parent recorded.
if importlib.util.find_spec("npu_emulator") is None:
    sys.path.append(os.environ.get("NPU_MIGRATOR_EMULATE_HOME", ""))


def _autoload() -> None:
    """PyTorch's backend-autoload entry point: importing this module does the work.

    Defined before anything imports torch: when a script's first import is `torch_npu`
    (as a migrated entry point's is), importing torch below runs the autoload, which finds
    this half-imported module and must get a callable, or torch's import fails.
    """


from npu_emulator import stand_ins  # noqa: E402

stand_ins.init_torch_npu(sys.modules[__name__])
from torch_npu import contrib  # noqa: E402, F401  (a name of torch_npu in every release)


def __getattr__(name: str) -> object:
    return stand_ins.missing(__name__, name)
