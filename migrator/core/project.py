"""The project view: facts about the whole project that a rule may need beyond its own file.

Computed once per run, before the per-file passes (`migrator.engine.project`), from the
files the run walks; never by importing or running anything. It travels to worker
processes inside the settings (so it is frozen and picklable) and is part of the cache's
run key: a changed fact re-checks every file. Each fact says where it comes from (a file
and a 1-based line), so a rule can give the reason in its message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from migrator.data.release import TargetRelease, resolve

# Config keys that name a device: their CUDA values are device settings.
DEVICE_KEY = re.compile(r"^(?:device|\w+_device|map_location)$")


@dataclass(frozen=True)
class Entry:
    """A project file that one of the project's own launch commands runs.

    `how` is the launcher as written (`torchrun`, `python -m`, `[project.scripts] train`).
    """

    path: str
    source: str
    line: int
    how: str

    @property
    def reason(self) -> str:
        return f"{self.source}:{self.line}: {self.how}"


@dataclass(frozen=True)
class Import:
    """The first import of a package (`mmcv`, ...) found in one file."""

    package: str
    path: str
    line: int


@dataclass(frozen=True)
class Pin:
    """A requirement on torch, torchvision, torchaudio or torch-npu.

    `name` is the canonical project name (`torch-npu`), `specifier` the version specifiers
    as `packaging` normalises them (`==2.7.1`, `<2.8,>=2.6`; empty for none).
    """

    name: str
    specifier: str
    marker: str
    path: str
    line: int

    def allows(self, version: str) -> bool:
        """Whether `version` satisfies the pin (pre-releases included)."""
        # Imported here, as below: a run whose project pins nothing never needs them.
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
        from packaging.version import InvalidVersion, Version

        try:
            return SpecifierSet(self.specifier).contains(Version(version), prereleases=True)
        except (InvalidSpecifier, InvalidVersion):
            return False

    @property
    def pinned_version(self) -> str | None:
        """`2.7.1` for `==2.7.1` / `===2.7.1`; None for ranges, wildcards or nothing."""
        from packaging.specifiers import SpecifierSet

        specs = list(SpecifierSet(self.specifier))
        if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
            return specs[0].version
        return None


@dataclass(frozen=True)
class DeviceSetting:
    """A config value that names a CUDA device (`device: cuda:0`, `map_location = "cuda"`).

    `key` is the path of keys and list indices from the document's root.
    """

    path: str
    key: tuple[str | int, ...]
    line: int
    value: str

    @property
    def dotted(self) -> str:
        return ".".join(str(part) for part in self.key)


@dataclass(frozen=True)
class Fp16Scaler:
    """A config value or launch flag by which a library (accelerate, the transformers
    Trainer) trains in fp16 with a GradScaler it builds itself (torch_npu's, on an NPU).

    `how` is the setting as written (`mixed_precision: fp16`, `--fp16`).
    """

    path: str
    line: int
    how: str

    @property
    def reason(self) -> str:
        return f"{self.path}:{self.line}: {self.how}"


@dataclass(frozen=True)
class ConfigFp16:
    """An mmcv config that trains fp16 with mmcv's loss scaler (`fp16 = dict(...)`, an
    `Fp16OptimizerHook`, mmengine's `AmpOptimWrapper`), set in `source` at `line`: the
    config itself, a `_base_` it inherits, or (`inherited`) a config that inherits this one,
    whose optimizer this file's settings then build (read statically, never executed)."""

    path: str
    source: str
    line: int
    how: str
    inherited: bool = False

    @property
    def reason(self) -> str:
        if self.source == self.path:
            return f"{self.how} (line {self.line})"
        relation = "which inherits this config" if self.inherited else "a _base_ of this config"
        return f"{self.how} ({self.source}:{self.line}, {relation})"


@dataclass(frozen=True)
class ProjectView:
    """Every fact, in a stable order (by file, then line)."""

    entries: tuple[Entry, ...] = ()
    imports: tuple[Import, ...] = ()
    pins: tuple[Pin, ...] = ()
    device_settings: tuple[DeviceSetting, ...] = ()
    fp16_scalers: tuple[Fp16Scaler, ...] = ()
    config_fp16: tuple[ConfigFp16, ...] = ()
    # Python files that build torch_npu's own GradScaler (or import torch.cuda.amp's by
    # name, which the migration moves there): `how` says "torch_npu's GradScaler".
    npu_grad_scalers: tuple[Fp16Scaler, ...] = ()
    # The torch-npu release the run targets and why (migrator.data.release.resolve, from
    # the flag or `[tool.migrate]`, else the pins above); None: the documented default.
    release: TargetRelease | None = None

    @property
    def target_release(self) -> TargetRelease:
        """The chosen release, or the default where the run chose none (a bare text)."""
        return self.release if self.release is not None else _default_release()

    # Whether this run migrates the device settings (NPU120 selected): code that compares
    # a value read from them may then compare with the NPU device alone.
    migrates_device_settings: bool = False

    def entry(self, path: str) -> Entry | None:
        """The first launch command that runs `path` (project-relative), if any."""
        return next((entry for entry in self.entries if entry.path == path), None)

    def imports_package(self, package: str) -> bool:
        return any(found.package == package for found in self.imports)

    def config_device_keys(self) -> frozenset[str]:
        """The last keys (`device`, `eval_device`) of device settings this run migrates."""
        if not self.migrates_device_settings:
            return frozenset()
        return frozenset(str(setting.key[-1]) for setting in self.device_settings if setting.key)

    def pins_of(self, name: str) -> tuple[Pin, ...]:
        return tuple(pin for pin in self.pins if pin.name == name)

    def fp16_of_config(self, path: str) -> ConfigFp16 | None:
        """Why the mmcv config at `path` trains fp16 with mmcv's scaler, if it does."""
        return next((found for found in self.config_fp16 if found.path == path), None)


def _default_release() -> TargetRelease:
    return resolve()


EMPTY = ProjectView()
