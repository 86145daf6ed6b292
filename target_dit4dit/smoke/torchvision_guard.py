"""Let a CUDA build of torchvision import next to a CPU build of torch.

PyPI serves only CUDA builds of torchvision for x86-64 Linux, while the smoke runs use the CPU
build of torch. torchvision's compiled ops then fail to load (they link ``libtorch_cuda``),
which torchvision tolerates, except that ``torchvision/_meta_registrations.py`` registers
fake kernels for ``torchvision::nms`` and ``torchvision::qnms`` unconditionally, and that
raises ``RuntimeError: operator torchvision::nms does not exist`` on ``import torchvision``.
transformers and diffusers import torchvision whenever it is installed, so nothing starts.

Declaring the two operator schemas first makes the import succeed; torchvision then reports
its compiled ops as absent (``torchvision.extension._has_ops() is False``), exactly as when
the extension is missing. DiT4DiT's training path uses only pure-Python torchvision
(``transforms.v2``, ``ops.box_iou``). On an Ascend host (aarch64, whose PyPI torchvision is a
CPU build) the extension loads and this function does nothing.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

_SCHEMAS = (
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
)

# Kept alive for the life of the process: dropping a Library object unregisters its ops.
_LIBRARIES: list[Any] = []


def ensure_torchvision_importable() -> bool:
    """Declare the two schemas if torchvision's extension cannot load; True if it did so."""
    if "torchvision" in sys.modules or _LIBRARIES:
        return False
    spec = importlib.util.find_spec("torchvision")
    if spec is None or spec.origin is None:
        return False
    import torch

    extensions = sorted(Path(spec.origin).parent.glob("_C*.so")) or sorted(
        Path(spec.origin).parent.glob("_C*.pyd")
    )
    if not extensions:
        return False
    try:
        torch.ops.load_library(str(extensions[0]))  # type: ignore[no-untyped-call]
    except OSError:
        library = torch.library.Library("torchvision", "DEF")  # type: ignore[no-untyped-call]
        for schema in _SCHEMAS:
            library.define(schema)  # type: ignore[no-untyped-call]
        _LIBRARIES.append(library)
        return True
    return False
