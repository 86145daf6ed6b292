"""``mx_driving.patcher.default_patcher_builder`` on the emulator.

The real builder's ``build()`` returns a patcher whose ``__enter__`` applies its patches
and returns the patcher, and whose ``__exit__`` undoes nothing. Its default patches are
mmcv/mmdet/mmdet3d operator swaps (skipped when those libraries are absent, as here),
numpy's removed type aliases, and NPU-speed wrappers of ``Tensor.__getitem__`` and
``torch.matmul`` that do not change results. The emulator applies the numpy aliases and
records that the patcher ran; the newer ``default_patcher.add(...).apply()`` API and the
transformers/diffusers patch classes are not emulated.
"""

from __future__ import annotations

from types import TracebackType

import numpy as np

from npu_emulator import report

# numpy >= 1.24 removed these aliases; mx_driving puts them back for older model code.
_NUMPY_ALIASES: dict[str, type] = {
    "bool": bool,
    "int": int,
    "float": float,
    "complex": complex,
    "object": object,
    "str": str,
}


class Patcher:
    """A built set of patches; use it as ``with builder.build() as patcher: ...``."""

    def __init__(self) -> None:
        self.applied = False

    def apply(self) -> None:
        for name, value in _NUMPY_ALIASES.items():
            if name not in np.__dict__:
                setattr(np, name, value)
        self.applied = True
        report.note("mx_driving_patcher_applied")

    def __enter__(self) -> Patcher:
        self.apply()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        # The real patcher leaves its patches in place after the block, too.
        return None


class PatcherBuilder:
    """``mx_driving.patcher.PatcherBuilder`` with the default patch set."""

    def build(self) -> Patcher:
        return Patcher()


default_patcher_builder = PatcherBuilder()
