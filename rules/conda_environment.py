"""conda `environment.yml` files that install CUDA."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from migrator.analysis.dependencies import (
    CUDA_URL,
    choose_torch,
    is_cuda_library,
    kept_off_aarch64,
    normalize,
    wheel_advice,
)
from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill, reported
from migrator.core.model import Finding, FixAvailability

if TYPE_CHECKING:
    from ruamel.yaml.comments import CommentedSeq

_CUDA_CHANNELS = frozenset({"nvidia", "pytorch", "pytorch-nightly"})
# conda packages that are CUDA itself, or a CUDA build of torch.
_CUDA_PACKAGE = re.compile(
    r"^(?:cudatoolkit(?:-dev)?|cuda|cuda-toolkit|cuda-[a-z-]+|pytorch-cuda|cudnn|nccl|"
    r"pytorch-gpu|magma-cuda\d+|libcublas|libcusparse|libcufft|libcurand|libnvjitlink)$"
)
_SPEC = re.compile(r"^\s*(?:[\w.-]+::)?(?P<name>[A-Za-z0-9_.-]+)\s*(?P<rest>.*)$")
_PIP_SPEC = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?P<rest>.*)$"
)


class CondaEnvironment(TextRule):
    """Report what a conda environment file installs for CUDA, and what the NPU needs.

    What it reports, in `environment*.yml` / `environment*.yaml` / `conda*.yml`:

    - the `pytorch` and `nvidia` channels (they serve CUDA builds of torch and CUDA
      itself);
    - conda packages that are CUDA: `cudatoolkit`, `cuda`, `cuda-*`, `pytorch-cuda=12.1`,
      `cudnn`, `nccl`, `pytorch-gpu`, and conda's `pytorch` itself (torch-npu is a pip
      wheel that needs PyPI's torch);
    - in the `pip:` list, what NPU102 reports in a requirements file: torch's CUDA wheels
      and Triton (to drop), a `+cuXXX` torch or a torch with no torch-npu release (with
      the release to pin), CUDA-only wheels with what to do instead, CUDA wheel indexes.

    Nothing is rewritten: an environment file mixes conda and pip resolution, and the
    hand ports of such projects kept it and wrote a pip requirements file for the NPU
    next to it (torch==X, torch-npu==X.*, no CUDA packages), installed into a plain
    Python environment on the CANN host. The suggestion says so.

    Why: conda's CUDA packages have no NPU counterpart and `pytorch-cuda` pins a CUDA
    build of torch, which torch-npu refuses; on aarch64 Ascend hosts most of them do not
    exist at all.

    Example: `- pytorch-cuda=12.1` is reported at its line.

    Safety: reports only.
    """

    code = "NPU113"
    action = "dependencies"
    fix_availability = FixAvailability.NEVER
    name = "conda-environment"
    summary = "Report CUDA channels, packages and pip wheels in conda environment files."
    trigger = Trigger(
        tokens=("",),
        unit=Unit.FILE,
        files=(
            "environment*.yml",
            "environment*.yaml",
            "conda*.yml",
            "conda*.yaml",
        ),
    )
    examples = (
        reported(
            "name: demo\nchannels:\n  - pytorch\n  - nvidia\ndependencies:\n"
            "  - python=3.10\n  - pytorch=2.1.0\n  - pytorch-cuda=12.1\n",
            "environment.yml",
        ),
        Example(
            "name: demo\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.10\n"
            "  - pip:\n    - numpy==1.26.4\n",
            None,
            "environment.yml",
        ),
    )

    def check(self, text: str) -> list[Finding]:
        # Imported here: YAML support costs start-up that runs without YAML files skip.
        from ruamel.yaml import YAML
        from ruamel.yaml.comments import CommentedMap, CommentedSeq
        from ruamel.yaml.error import YAMLError

        self._found: list[Finding] = []
        try:
            document = YAML(typ="rt").load(text)
        except YAMLError:
            return self._found
        if not isinstance(document, CommentedMap):
            return self._found
        channels = document.get("channels")
        if isinstance(channels, CommentedSeq):
            for index, channel in enumerate(channels):
                if isinstance(channel, str) and channel.strip() in _CUDA_CHANNELS:
                    self._at(
                        channels,
                        index,
                        f"channel {channel}: it serves CUDA builds of torch and CUDA itself",
                        "use conda-forge and defaults for the rest; torch and "
                        f"{self.target.runtime_requirement} come from pip",
                    )
        dependencies = document.get("dependencies")
        if not isinstance(dependencies, CommentedSeq):
            return self._found
        for index, item in enumerate(dependencies):
            if isinstance(item, str):
                self._conda(dependencies, index, item)
            elif isinstance(item, CommentedMap) and isinstance(item.get("pip"), CommentedSeq):
                pip = item["pip"]
                for pip_index, spec in enumerate(pip):
                    if isinstance(spec, str):
                        self._pip(pip, pip_index, spec)
        return self._found

    def _hint(self) -> str:
        runtime = self.target.runtime_requirement
        return (
            f"write requirements for the {self.target.device_type.upper()} beside this file "
            f"(torch==X, {runtime}==X.*, no CUDA packages) and install them with pip on the "
            "CANN host"
        )

    def _at(self, sequence: CommentedSeq, index: int, message: str, suggestion: str) -> None:
        line, column = sequence.lc.item(index)
        self._report(line + 1, column + 1, message, suggestion)

    def _conda(self, sequence: CommentedSeq, index: int, spec: str) -> None:
        match = _SPEC.match(spec)
        if match is None:
            return
        name = match.group("name").lower()
        if _CUDA_PACKAGE.match(name):
            self._at(sequence, index, f"{spec.strip()}: a CUDA package", self._hint())
        elif name == "pytorch":
            self._at(
                sequence,
                index,
                f"{spec.strip()}: conda's torch build; {self.target.runtime_requirement} "
                "is a pip wheel that needs PyPI's torch",
                self._hint(),
            )

    def _pip(self, sequence: CommentedSeq, index: int, spec: str) -> None:
        text = spec.strip()
        if text.startswith("-"):
            if CUDA_URL.search(text):
                self._at(sequence, index, f"{text} serves CUDA builds of torch", "use .../whl/cpu")
            return
        match = _PIP_SPEC.match(text)
        if match is None:
            return
        name = normalize(match.group("name"))
        rest = match.group("rest")
        if is_cuda_library(name):
            runtime = self.target.runtime_requirement
            message = f"{text}: a wheel of torch's CUDA build, not used with {runtime}"
            self._at(sequence, index, message, "drop it")
            return
        if name == "torch":
            version = rest.split(";")[0].strip()
            if version.startswith("=="):
                self._torch(sequence, index, text, version[2:].strip())
            return
        advice = wheel_advice(name)
        if advice is None or (advice.aarch64_only and kept_off_aarch64(rest)):
            return
        why = f" ({advice.why})" if advice.why else ""
        self._at(
            sequence,
            index,
            f"{name} has no {self.target.device_type.upper()} build{why}",
            fill(advice.suggestion, self.target),
        )

    def _torch(self, sequence: CommentedSeq, index: int, text: str, version: str) -> None:
        base, _, local = version.partition("+")
        choice = choose_torch(base, self.target.runtime_torch_versions)
        runtime = self.target.runtime_requirement
        if choice.version is None:
            self._at(
                sequence,
                index,
                f"{text}: {choice.reason}",
                f"pin torch to one of {', '.join(choice.candidates)} with {runtime}==X.*",
            )
        elif choice.version != base or local.startswith(("cu", "rocm")):
            self._at(
                sequence,
                index,
                f"{text}: {choice.reason or 'a GPU build'}",
                f"pin torch=={choice.version} and {runtime}=={choice.version}.*",
            )

    def _report(self, line: int, col: int, message: str, suggestion: str = "") -> None:
        self._found.append(self.warning(line, col, message, suggestion))
