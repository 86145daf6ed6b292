"""The released API surface of torch-npu, mx-driving and torch 2.7.1, as committed data.

`torch_npu_api.json` is generated from the released wheels by `python -m migrator.data.generate`
(read as zip files, never installed; see that module for what is read from where). This
loader is standard library only and imports nothing else of `migrator`, so that the static
tool and the emulator can both read the same facts.

Packages are keyed by their import name: `"torch_npu"`, `"mx_driving"`, `"torch"`. Module
names are dotted import paths as written in code that has imported torch_npu: the loader
answers `torch.npu.<name>` from `torch_npu.npu`, which torch_npu registers as `torch.npu`.
A name is "public" when the wheel's Python sources bind it at a module's top level without a
leading underscore (a superset of `__all__`): names set only at run time from C++ are not in
the data, apart from torch_npu's custom ops (`torch_npu.npu_*`), read from its kernel list.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

DATA_FILE = "torch_npu_api.json"

# The fused optimizer kernels that `torch.optim.<X>(fused=True)` dispatches to.
FUSED_OPTIMIZER_KERNELS = {"Adam": "_fused_adam_", "AdamW": "_fused_adamw_", "SGD": "_fused_sgd_"}

# Module names that the device module appears under once torch_npu is imported.
_ALIASES = {"torch.npu": "torch_npu.npu"}


@dataclass(frozen=True)
class Wheel:
    """The wheel a release's facts were read from, so that they can be checked."""

    filename: str
    sha256: str
    size: int


@dataclass(frozen=True)
class TorchNpuRelease:
    """One torch-npu release: its torch pin and its CANN pairing."""

    version: str
    requires_torch: str
    torch_version: str
    cann: str | None
    cann_source: str
    wheel: Wheel


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    # Beside this module (package data of a regular install): read with a plain open, since
    # importlib.resources would import zipfile and tempfile into every run's start-up.
    text = Path(__file__).with_name(DATA_FILE).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def version_key(version: str) -> tuple[tuple[int, ...], int]:
    """Order of the release numbers in the data (`2.7.1.post11` > `2.7.1.post2`)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)*)(?:\.post(\d+))?", version)
    if match is None:
        raise ValueError(f"not a release number of the data file: {version!r}")
    return tuple(int(part) for part in match.group(1).split(".")), int(match.group(2) or -1)


def _package(package: str) -> dict[str, Any]:
    found: dict[str, Any] | None = _data().get(package)
    if found is None:
        raise KeyError(f"no package {package!r} in {DATA_FILE}")
    return found


@cache
def versions(package: str = "torch_npu") -> tuple[str, ...]:
    """The releases of `package` in the data, oldest first (sorted once: NPU078's names
    gate asks for each name a region holds)."""
    return tuple(sorted(_package(package), key=version_key))


def _release(package: str, version: str) -> dict[str, Any]:
    found: dict[str, Any] | None = _package(package).get(version)
    if found is None:
        known = ", ".join(versions(package))
        raise KeyError(f"{package} {version} is not in {DATA_FILE} (known: {known})")
    return found


def _wheel(record: dict[str, Any]) -> Wheel:
    return Wheel(record["filename"], record["sha256"], record["size"])


@cache
def torch_npu_release(version: str) -> TorchNpuRelease:
    """The torch pin and CANN pairing of a torch-npu release."""
    release = _release("torch_npu", version)
    pin: str = release["requires_torch"]
    torch_version = pin.split("==", 1)[1].removesuffix(".*")
    return TorchNpuRelease(
        version,
        pin,
        torch_version,
        release["cann"],
        release["cann_source"],
        _wheel(release["wheel"]),
    )


def wheel(package: str, version: str) -> Wheel:
    """The wheel (name, sha256, size) the facts of `package` `version` come from."""
    return _wheel(_release(package, version)["wheel"])


def requires_torch(package: str, version: str) -> str | None:
    """The `Requires-Dist: torch` line of a torch-npu or mx-driving release."""
    pin: str | None = _release(package, version).get("requires_torch")
    return pin


def cann_table() -> dict[str, tuple[str, str]]:
    """torch-npu release -> (CANN version, torch version), from the wheels' README tables.

    Covers releases that are not in the data too (every row of every wheel's table).
    """
    table: dict[str, dict[str, str]] = _data()["cann_table"]
    return {release: (row["cann"], row["torch"]) for release, row in table.items()}


def _unalias(module: str) -> str:
    for alias, real in _ALIASES.items():
        if module == alias or module.startswith(alias + "."):
            return real + module[len(alias) :]
    return module


def _module(package: str, version: str, module: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = _release(package, version)["modules"].get(_unalias(module))
    return found


def modules(package: str, version: str) -> tuple[str, ...]:
    """The modules whose names the data records for this release."""
    return tuple(sorted(_release(package, version)["modules"]))


@cache
def names(package: str, version: str, module: str) -> frozenset[str]:
    """Public names of `module` (`torch.npu[.amp]` reads as `torch_npu.npu[.amp]`) in a release.

    Raises KeyError for a module the data does not record (not the same as "no names").
    """
    found = _module(package, version, module)
    if found is None:
        raise KeyError(f"{module} is not recorded for {package} {version} in {DATA_FILE}")
    return frozenset(found["names"])


def has_name(package: str, version: str, module: str, name: str) -> bool:
    """Whether `module.name` exists in that release (`has_name(..., "torch.npu", "random")`)."""
    return name in names(package, version, module)


def signature(package: str, version: str, module: str, name: str) -> tuple[str, ...] | None:
    """Parameter names of a function or class (`__init__`, without `self`), in order.

    `*` and `/` mark keyword-only and positional-only parameters, `*args` / `**kwargs` keep
    their stars. None where the data has no signature (not a function, or not seen).
    """
    found = _module(package, version, module)
    params: list[str] | None = None if found is None else found["signatures"].get(name)
    return None if params is None else tuple(params)


@cache
def npu_kernels(version: str) -> frozenset[str]:
    """The aten ops (`name` or `name.overload`) with an NPU kernel in a torch-npu release."""
    return frozenset(_release("torch_npu", version)["kernels"]["aten"])


@cache
def npu_custom_ops(version: str) -> frozenset[str]:
    """The ops of torch_npu's own `npu` namespace (`torch.ops.npu.<op>`) in a release."""
    return frozenset(_release("torch_npu", version)["kernels"]["npu"])


@cache
def _kernel_bases(version: str) -> frozenset[str]:
    """The op names of `npu_kernels` without their overload (`add` for `add.Tensor`)."""
    return frozenset(kernel.split(".", 1)[0] for kernel in npu_kernels(version))


def has_npu_kernel(version: str, op: str) -> bool:
    """Whether aten op `op` has an NPU kernel; a name without overload matches any overload."""
    # A set lookup, not a scan of every kernel: NPU080 asks this of every op at import.
    return op in npu_kernels(version) or ("." not in op and op in _kernel_bases(version))


@cache
def backend_ops(torch_version: str = "2.7.1") -> frozenset[str]:
    """Base names of the aten ops that need a kernel per device in that torch release.

    The others are composite: torch computes them from other ops on any device.
    """
    return frozenset(_release("torch", torch_version)["backend_ops"])


def lacks_npu_kernel(version: str, op: str, torch_version: str = "2.7.1") -> bool:
    """Whether aten op `op` (a base name) needs a per-device kernel and no overload of it
    has one in torch-npu `version`: it then runs through torch_npu's CPU fallback."""
    return op in backend_ops(torch_version) and not has_npu_kernel(version, op)


def fused_optimizers(version: str) -> frozenset[str]:
    """The `torch.optim` classes whose `fused=True` kernel the release has on the NPU."""
    return frozenset(
        optimizer
        for optimizer, kernel in FUSED_OPTIMIZER_KERNELS.items()
        if kernel in npu_kernels(version)
    )


def default_torch_npu() -> str:
    """The documented default target: the newest torch-npu 2.7.1.postN in the data.

    torch 2.7.1 is the stack of a DiT4DiT Ascend host, and mx-driving needs torch < 2.9.
    """
    candidates = [v for v in versions("torch_npu") if v.startswith("2.7.1.post")]
    return candidates[-1]


@cache
def mirrored_cuda_names(torch_npu_version: str, torch_version: str = "2.7.1") -> frozenset[str]:
    """The `torch.cuda.<name>` public names that `torch.npu.<name>` also has.

    torch.cuda's names are torch `torch_version`'s; torch.npu's are those of `torch_npu.npu`
    in the given torch-npu release. Presence only: a name here may still behave differently
    on the NPU (`get_device_capability` returns a stand-in value, for one).
    """
    cuda = names("torch", torch_version, "torch.cuda")
    return cuda & names("torch_npu", torch_npu_version, "torch_npu.npu")
