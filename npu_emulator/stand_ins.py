"""What the stand-in packages in ``_shims/`` do, kept here where it is typed and tested."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import NoReturn

from npu_emulator import report
from npu_emulator.errors import not_emulated

#: The folder of stand-in packages (torch_npu, mx_driving) put on the path under emulation.
SHIMS = Path(__file__).resolve().parent / "_shims"


def init_torch_npu(module: ModuleType) -> None:
    """Fill the ``torch_npu`` stand-in: turn emulation on, expose ``torch_npu.npu``."""
    from npu_emulator.install import install

    install()
    import torch

    from npu_emulator import npu, npu_ops, optimizer_ops

    # Module attributes set at run time: setattr keeps them out of the type checker's way.
    setattr(module, "npu", npu)  # noqa: B010
    setattr(module, "__version__", torch.__version__.split("+")[0] + "+emulator")  # noqa: B010
    for name in ("npu_rms_norm", "npu_geglu", "npu_fusion_attention"):
        setattr(module, name, getattr(npu_ops, name))
    for name in ("npu_apply_adam_w", "npu_apply_adam"):
        setattr(module, name, getattr(optimizer_ops, name))
    sys.modules[f"{module.__name__}.npu"] = npu
    sys.modules[f"{module.__name__}.npu.amp"] = npu.amp
    sys.modules[f"{module.__name__}.npu.random"] = npu.random
    report.note("torch_npu_loaded")


def apply_transfer_to_npu() -> None:
    from npu_emulator import transfer

    transfer.apply()
    report.note("transfer_to_npu_applied")


def missing(module: str, name: str) -> NoReturn:
    """Module ``__getattr__`` of a stand-in: dunders are absent, the rest not emulated."""
    if name.startswith("__"):
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    not_emulated(f"{module}.{name}")
