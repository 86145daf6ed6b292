"""Dependencies declared in `pyproject.toml`: PEP 621, dependency groups, PDM, Poetry, uv."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

import tomlkit
from packaging.requirements import InvalidRequirement, Requirement
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Array

from migrator.analysis.dependencies import (
    COMPANIONS,
    CUDA_URL,
    choose_torch,
    companion,
    is_cuda_library,
    kept_off_aarch64,
    normalize,
    wheel_advice,
)
from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill
from migrator.core.model import Finding, TextEdit

_TORCH = "torch"


def _pin(requirement: Requirement) -> str | None:
    specifiers = list(requirement.specifier)
    if (
        len(specifiers) == 1
        and specifiers[0].operator in ("==", "===")
        and "*" not in str(specifiers[0].version)
    ):
        return specifiers[0].version
    return None


def _arrays(document: Any) -> Iterator[tuple[str, Array]]:
    """(where, array) for each PEP 508 list of the file."""
    project = document.get("project", {})
    if isinstance(project.get("dependencies"), Array):
        yield "[project] dependencies", project["dependencies"]
    for group, items in project.get("optional-dependencies", {}).items():
        if isinstance(items, Array):
            yield f"optional-dependencies.{group}", items
    for group, items in document.get("dependency-groups", {}).items():
        if isinstance(items, Array):
            yield f"dependency-groups.{group}", items
    pdm = document.get("tool", {}).get("pdm", {})
    for group, items in pdm.get("dev-dependencies", {}).items():
        if isinstance(items, Array):
            yield f"tool.pdm.dev-dependencies.{group}", items


def _remove(index: int, array: Array) -> None:
    del array[index]


def _replace(index: int, new: str, array: Array) -> None:
    array[index] = new


def _insert_after(index: int, new: str, array: Array) -> None:
    array.insert(index + 1, new)


class PyprojectDependencies(TextRule):
    """Migrate the torch pin and CUDA wheels of `pyproject.toml`, keeping its comments.

    What it does, in `[project] dependencies`, `[project.optional-dependencies]`,
    `[dependency-groups]` and PDM's `dev-dependencies` (PEP 508 strings), with the policy
    NPU102 applies to requirements files (`migrator.analysis.dependencies`):

    - deletes `nvidia-*-cu12` pins and `triton` (torch's CUDA wheels);
    - moves `torch==X` to the nearest torch with a torch-npu release (`+cu118` dropped,
      another release flagged for review; an older major is a warning with candidates),
      moves a `torchvision`/`torchaudio` pin of the same list to the release built for it,
      and inserts `torch-npu==X.*` after torch unless the file names torch-npu;
    - reports CUDA-only wheels (flash-attn, xformers, apex, decord, ...) with what to do
      instead.

    Reported only: Poetry's `[tool.poetry.dependencies]` (and groups): torch pinned to a
    CUDA build and CUDA-only wheels; `[[tool.poetry.source]]`, `[[tool.uv.index]]` and
    `[tool.uv.sources]` entries that point at CUDA wheel indexes. A torch range
    (`torch>=2.1`) is left alone: a library states what it runs on, not a host's torch.

    The file is read and written with tomlkit, so comments, key order, quoting and
    layout stay; an untouched file is returned byte for byte.

    Why: as for requirements files (NPU102): a `+cu118` torch or one without a torch-npu
    release cannot be installed beside the NPU runtime, and torch's CUDA wheels are dead
    weight or uninstallable on aarch64 Ascend hosts.

    Example: `dependencies = ["torch==2.0.1+cu118"]` ->
    `dependencies = ["torch==2.1.0", "torch-npu==2.1.0.*"]`.

    Safety: safe; a torch moved to another release (and its companions) needs review.
    """

    code = "NPU114"
    action = "dependencies"
    name = "pyproject-dependencies"
    summary = "pyproject.toml: torch pin to a torch-npu release, CUDA wheels dropped or reported."
    trigger = Trigger(tokens=("",), unit=Unit.FILE, files=("pyproject.toml",))
    examples = (
        Example(
            '[project]\nname = "demo"\ndependencies = [\n    "torch==2.7.1+cu126",\n'
            '    "nvidia-cublas-cu12==12.4.5.8",  # CUDA\n    "numpy",\n]\n',
            '[project]\nname = "demo"\ndependencies = [\n    "torch==2.7.1",\n'
            '    "torch-npu==2.7.1.*",\n    "numpy",\n]\n',
            "pyproject.toml",
        ),
        Example(
            '[project]\nname = "demo"\ndependencies = ["torch>=2.1", "numpy"]\n',
            None,
            "pyproject.toml",
        ),
    )

    def check(self, text: str) -> list[Finding]:
        try:
            document = tomlkit.parse(text)
        except TOMLKitError:
            return []
        self._text = text
        self._found: list[Finding] = []
        runtime = normalize(self.target.runtime_requirement)
        self._has_runtime = runtime in text.lower().replace("_", "-")
        for where, array in _arrays(document):
            self._array(where, array)
        self._poetry(document)
        self._indexes(document)
        return self._found

    def _edit(self, where: str, change: Callable[[Array], None]) -> TextEdit:
        """The smallest text edit that makes one change to the array `where`.

        tomlkit keeps comments and layout but gives no offsets, so the change is made on a
        fresh parse of the file and the edit is what differs from the original text: each
        finding carries its own edit, and the engine applies (or suppresses) them one by one.
        """
        document = tomlkit.parse(self._text)
        change(dict(_arrays(document))[where])
        new = tomlkit.dumps(document)
        old = self._text
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        end_old, end_new = len(old), len(new)
        while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
            end_old -= 1
            end_new -= 1
        return TextEdit(start, end_old, new[start:end_new])

    def _change(
        self, needle: str, message: str, where: str, change: Callable[[Array], None],
        review: bool | None = None,
    ) -> None:  # fmt: skip
        edit = self._edit(where, change)
        self._found.append(self.change(self._line(needle), 1, message, edit, review=review))

    def _line(self, needle: str) -> int:
        offset = self._text.find(needle)
        return self._text.count("\n", 0, offset) + 1 if offset >= 0 else 1

    def _warn(self, needle: str, message: str, suggestion: str) -> None:
        self._found.append(self.warning(self._line(needle), 1, message, suggestion))

    def _array(self, where: str, array: Array) -> None:
        torch_choice: str | None = None
        torch_moved = False
        parsed: list[tuple[int, Requirement]] = []
        for index, item in enumerate(array):
            if isinstance(item, str):
                try:
                    parsed.append((index, Requirement(item)))
                except InvalidRequirement:
                    continue
        runtime = self.target.runtime_requirement
        for index, requirement in parsed:
            name = normalize(requirement.name)
            raw = str(array[index])
            if is_cuda_library(name):
                self._change(
                    raw,
                    f"removed {raw} from {where}: a wheel of torch's CUDA build, not used "
                    f"with {runtime}",
                    where,
                    functools.partial(_remove, index),
                )
            elif name == _TORCH:
                version = _pin(requirement)
                if version is None:
                    continue
                base, _, local = version.partition("+")
                choice = choose_torch(base, self.target.runtime_torch_versions)
                if choice.version is None:
                    self._warn(
                        raw,
                        f"{raw} in {where}: {choice.reason}",
                        f"pin torch to one of {', '.join(choice.candidates)} with "
                        f"{runtime}==X.*; only a person can choose",
                    )
                    continue
                torch_choice = choice.version
                moved = choice.version != base
                if moved or local:
                    new = raw.replace(version, choice.version, 1)
                    why = choice.reason if moved else f"the CPU build {runtime} needs"
                    self._change(
                        raw, f"{raw} -> {new}: {why}", where,
                        functools.partial(_replace, index, new), review=moved,
                    )  # fmt: skip
                    torch_moved = moved
                if not self._has_runtime:
                    marker = f"; {requirement.marker}" if requirement.marker else ""
                    line = f"{runtime}=={choice.version}.*{marker}"
                    self._change(
                        raw, f"added {line} after torch in {where}", where,
                        functools.partial(_insert_after, index, line),
                    )  # fmt: skip
                    self._has_runtime = True
            elif name not in COMPANIONS:
                self._wheel(raw, name, str(requirement.marker or ""), where)
        for index, requirement in parsed:
            name = normalize(requirement.name)
            version = _pin(requirement)
            if name not in COMPANIONS or version is None or torch_choice is None:
                continue
            found = companion(name, torch_choice)
            if found is None:
                continue
            wanted, checked = found
            if version == wanted:
                continue
            raw = str(array[index])
            new = raw.replace(version, wanted, 1)
            review = torch_moved or not checked
            message = f"{raw} -> {new}: the {name} built for torch {torch_choice}"
            self._change(raw, message, where, functools.partial(_replace, index, new), review)

    def _wheel(self, raw: str, name: str, marker: str, where: str) -> None:
        advice = wheel_advice(name)
        if advice is None or (advice.aarch64_only and kept_off_aarch64(marker)):
            return
        why = f" ({advice.why})" if advice.why else ""
        self._warn(
            raw,
            f"{name} in {where} has no {self.target.device_type.upper()} build{why}",
            fill(advice.suggestion, self.target),
        )

    def _poetry(self, document: Any) -> None:
        poetry = document.get("tool", {}).get("poetry", {})
        tables = [("tool.poetry.dependencies", poetry.get("dependencies", {}))]
        for group, body in poetry.get("group", {}).items():
            tables.append((f"tool.poetry.group.{group}", body.get("dependencies", {})))
        for where, table in tables:
            for key, value in table.items():
                name = normalize(key)
                spec = value if isinstance(value, str) else str(value.get("version", ""))
                if name == _TORCH and re.search(r"\+(cu|rocm)\d", spec):
                    self._warn(
                        f"{key} =",
                        f"torch {spec} in {where} is a GPU build",
                        f"pin the CPU build torch and add {self.target.runtime_requirement} "
                        "at the same version",
                    )
                elif name != _TORCH:
                    self._wheel(f"{key} =", name, "", where)
        for source in poetry.get("source", []):
            url = str(source.get("url", ""))
            if CUDA_URL.search(url):
                self._warn(
                    url, f"poetry source {url} serves CUDA builds of torch", "use .../whl/cpu"
                )

    def _indexes(self, document: Any) -> None:
        uv = document.get("tool", {}).get("uv", {})
        for index in uv.get("index", []):
            url = str(index.get("url", ""))
            if CUDA_URL.search(url):
                self._warn(url, f"uv index {url} serves CUDA builds of torch", "use .../whl/cpu")
