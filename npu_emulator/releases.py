"""Which torch-npu release the emulated host runs, and what that release has.

A host runs one torch-npu release and its kernels differ by release. The emulated one is
``NPU_MIGRATOR_EMULATE_TORCH_NPU`` (``python -m npu_emulator --torch-npu VERSION``),
default :data:`DEFAULT_RELEASE`, the newest 2.7.1.postN: the stack a DiT4DiT Ascend host
uses (mx-driving needs torch < 2.9).

The table below is kept here until the generated API data file
(``migrator/data/torch_npu_api.json``) lands; it has the same shape (release -> names) so
that :func:`fused_optimizer_kernels` can then read that file by path, with the standard
library only (the emulator imports nothing of the static tool).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

ENV_RELEASE = "NPU_MIGRATOR_EMULATE_TORCH_NPU"
DEFAULT_RELEASE = "2.7.1.post11"

#: Fused-optimizer aten kernels each release registers for the NPU. Source: the released
#: wheels' registered NPU kernels (shared/reference/ascend-facts.md §8): only
#: ``_fused_adamw_`` in 2.6.0 and 2.7.1.post2; ``_fused_adam_`` and ``_fused_sgd_`` too
#: in 2.7.1.post11 and 2.14.0.
FUSED_OPTIMIZER_KERNELS: Mapping[str, frozenset[str]] = {
    "2.6.0": frozenset({"_fused_adamw_"}),
    "2.7.1.post2": frozenset({"_fused_adamw_"}),
    "2.7.1.post11": frozenset({"_fused_adamw_", "_fused_adam_", "_fused_sgd_"}),
    "2.14.0": frozenset({"_fused_adamw_", "_fused_adam_", "_fused_sgd_"}),
}
#: The fused-optimizer kernels torch has; a release without one falls back to the CPU.
FUSED_OPTIMIZER_OPS = frozenset({"_fused_adamw_", "_fused_adam_", "_fused_sgd_"})


def known() -> list[str]:
    return list(FUSED_OPTIMIZER_KERNELS)


def check(release: str) -> str:
    """``release`` if the emulator knows it, else a ValueError naming the known ones."""
    if release not in FUSED_OPTIMIZER_KERNELS:
        raise ValueError(
            f"unknown torch-npu release {release!r}; the emulator knows {', '.join(known())}"
        )
    return release


def current(environ: Mapping[str, str] | None = None) -> str:
    """The release the emulated host runs (from ``NPU_MIGRATOR_EMULATE_TORCH_NPU``)."""
    env = os.environ if environ is None else environ
    return check(env.get(ENV_RELEASE, "").strip() or DEFAULT_RELEASE)


def fused_optimizer_kernels(release: str) -> frozenset[str]:
    return FUSED_OPTIMIZER_KERNELS[check(release)]
