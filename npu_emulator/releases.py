"""Which torch-npu release the emulated host runs, and which NPU kernels it has.

A host runs one torch-npu release and its kernels differ by release. The emulated one is
``NPU_MIGRATOR_EMULATE_TORCH_NPU`` (``python -m npu_emulator --torch-npu VERSION``),
default the newest 2.7.1.postN of the data: the stack a DiT4DiT Ascend host uses
(mx-driving needs torch < 2.9).

The facts are the released wheels' registered NPU kernels, read from the committed API
data (``migrator/data/torch_npu_api.json``) through ``migrator.data``, a loader that is
standard library only and imports nothing else of the static tool; for the fused
optimizers: only ``_fused_adamw_`` in 2.6.0 and 2.7.1.post2, ``_fused_adam_`` and
``_fused_sgd_`` too in 2.7.1.post11 and 2.14.0, and no ``.tensor_lr`` form of
``_fused_adamw_`` in any (see shared/reference/ascend-facts.md §8).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping

from migrator import data

ENV_RELEASE = "NPU_MIGRATOR_EMULATE_TORCH_NPU"
DEFAULT_RELEASE = data.default_torch_npu()

#: The fused-optimizer kernels of torch.optim (``Adam(fused=True)`` -> ``_fused_adam_``).
FUSED_OPTIMIZER_OPS = frozenset(data.FUSED_OPTIMIZER_KERNELS.values())


def known() -> list[str]:
    return list(data.versions("torch_npu"))


def check(release: str) -> str:
    """``release`` if the data knows it, else a ValueError naming the known ones."""
    if release not in data.versions("torch_npu"):
        raise ValueError(
            f"unknown torch-npu release {release!r}; the emulator knows {', '.join(known())}"
        )
    return release


def current(environ: Mapping[str, str] | None = None) -> str:
    """The release the emulated host runs (from ``NPU_MIGRATOR_EMULATE_TORCH_NPU``)."""
    env = os.environ if environ is None else environ
    return _checked(env.get(ENV_RELEASE, "").strip() or DEFAULT_RELEASE)


@functools.cache
def _checked(release: str) -> str:
    return check(release)


def public_names(module: str, release: str | None = None) -> frozenset[str] | None:
    """Public names of a torch_npu module in a release, or None where the data lacks it.

    Default release: the one the emulated host runs.
    """
    version = _checked(release or current())
    if module not in data.modules("torch_npu", version):
        return None
    return data.names("torch_npu", version, module)


def releases_with(module: str, name: str) -> list[str]:
    """The releases of the data whose ``module`` binds ``name``, oldest first."""
    return [v for v in data.versions("torch_npu") if name in (public_names(module, v) or ())]


def host_torch(release: str | None = None) -> str:
    """The torch version the release is built for (torch-npu 2.7.1.postN: ``"2.7.1"``)."""
    return data.torch_npu_release(_checked(release or current())).torch_version


def torch_names(module: str, release: str | None = None) -> frozenset[str] | None:
    """Public names of a torch module in the host's torch, or None where the data lacks them.

    The data records torch 2.7.1 (the torch of the 2.7.1 releases), and of it only some
    modules (``torch.accelerator``, ``torch.amp``, ``torch.cuda``, ...).
    """
    torch = host_torch(release)
    if torch not in data.versions("torch") or module not in data.modules("torch", torch):
        return None
    return data.names("torch", torch, module)


def has_npu_kernel(release: str, op: str, overload: str = "default") -> bool:
    """Whether aten ``op`` (``"_fused_adam_"``) in that overload has an NPU kernel there."""
    name = op if overload == "default" else f"{op}.{overload}"
    return name in data.npu_kernels(_checked(release))
