"""What the stand-in packages in ``_shims/`` do, kept here where it is typed and tested."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType
from typing import NoReturn

from npu_emulator import report, surface

#: What the ``torch_npu`` stand-in provides (every name is in every release of the data).
TORCH_NPU_NAMES = (
    "contrib",
    "npu",
    "npu_apply_adam",
    "npu_apply_adam_w",
    "npu_fusion_attention",
    "npu_geglu",
    "npu_rms_norm",
)

#: The folder of stand-in packages (torch_npu, mx_driving) put on the path under emulation.
SHIMS = Path(__file__).resolve().parent / "_shims"


def init_torch_npu(module: ModuleType) -> None:
    """Fill the ``torch_npu`` stand-in: turn emulation on, expose ``torch_npu.npu``."""
    from npu_emulator.install import install

    install()
    import torch

    from npu_emulator import npu, npu_ops, optimizer_ops

    # Module attributes set at run time: setattr keeps them out of the type checker's way.
    setattr(module, "__all__", list(TORCH_NPU_NAMES))  # noqa: B010
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
    """Module ``__getattr__`` of a stand-in: the release's names not emulated, others absent.

    A submodule (``torch_npu.contrib``) that the package imports on first use is bound by
    the import system, so asking for it here means it was never imported.
    """
    surface.missing(module, name)
