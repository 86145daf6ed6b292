"""Small stand-in rules for engine tests: a warning-only Python rule, an entry-point rule
that inserts lines, and two text rules (shell, requirements).

They keep the engine's features (TODO comments, text-file suppressions, notebooks) tested
on their own. The `fixture_rules` fixture adds them to the registry for one test and
leaves out the real rules they stand in for (NPU050-NPU149: warnings on flash_attn and the
like, shell and requirements rules), so a test sees only the fixtures' reports.
"""

from __future__ import annotations

import dataclasses
import re

import libcst as cst
import pytest

from migrator.contract.rule import Example, PythonRule, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Finding, TextEdit
from migrator.engine import registry
from migrator.formats.sources import split_lines


class FlashAttnCall(PythonRule):
    """Warns on flash_attn calls. Why: a fixture for tests."""

    code = "TST050"
    action = "replace-library"
    name = "flash-attn-call"
    summary = "flash_attn calls (test fixture)."
    trigger = Trigger(tokens=("flash_attn",))
    examples = (
        Example("import flash_attn\nflash_attn.flash_attn_func(q, k, v)\n", None),
        Example("x = 1\n", None),
    )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        name = self.qualname(original_node.func)
        if name is not None and name.startswith("flash_attn."):
            self.warn(original_node, f"{name} has no NPU build", "use npu_fusion_attention")
        return updated_node


class EntrySetup(PythonRule):
    """Entry scripts (a main guard, or named by --entry) import torch_npu at the top, and
    transfer_to_npu unless it is turned off. Why: a fixture."""

    code = "TST030"
    action = "host-setup"
    name = "entry-setup"
    summary = "Entry scripts import torch_npu (test fixture)."
    trigger = Trigger(tokens=("__main__", "def main"), unit=Unit.MODULE, notebooks=False)
    priority = 900

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        code = original_node.code
        entry = self.ctx.path in self.ctx.options.entry_points or "__main__" in code
        if not entry or "import torch_npu" in code:
            return updated_node
        lines = [cst.parse_statement("import torch_npu\n")]
        if self.ctx.options.transfer_to_npu:
            lines.append(cst.parse_statement("from torch_npu.contrib import transfer_to_npu\n"))
        replacement = updated_node.with_changes(body=[*lines, *updated_node.body])
        return self.edit(original_node, updated_node, replacement, "import torch_npu")


class ShellCudaDevices(TextRule):
    """CUDA_VISIBLE_DEVICES in shell scripts; warns on nvidia-smi. Why: a fixture."""

    code = "TST100"
    action = "host-setup"
    name = "shell-cuda-devices"
    summary = "CUDA_VISIBLE_DEVICES in shell scripts (test fixture)."
    trigger = Trigger(
        tokens=("CUDA_VISIBLE_DEVICES", "nvidia-smi"), unit=Unit.FILE, files=("*.sh",)
    )

    def check(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        offset = 0
        for number, line in enumerate(split_lines(text), start=1):
            at = line.find("CUDA_VISIBLE_DEVICES")
            if at >= 0:
                edits = [
                    TextEdit(offset + m.start(), offset + m.end(), "ASCEND_RT_VISIBLE_DEVICES")
                    for m in re.finditer("CUDA_VISIBLE_DEVICES", line)
                ]
                found.append(self.change(number, at + 1, "-> ASCEND_RT_VISIBLE_DEVICES", *edits))
            at = line.find("nvidia-smi")
            if at >= 0 and not line.lstrip().startswith("#"):
                found.append(
                    self.warning(
                        number, at + 1, "nvidia-smi does not exist here", "use npu-smi info"
                    )
                )
            offset += len(line)
        return found


class RequirementsFlashAttn(TextRule):
    """Warns on flash-attn requirements; drops nvidia-* wheels. Why: a fixture."""

    code = "TST101"
    action = "dependencies"
    name = "requirements-flash-attn"
    summary = "flash-attn in requirements files (test fixture)."
    trigger = Trigger(
        tokens=("flash-attn", "nvidia-"), unit=Unit.FILE, files=("requirements*.txt",)
    )

    def check(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        offset = 0
        for number, line in enumerate(split_lines(text), start=1):
            if line.startswith("flash-attn"):
                found.append(self.warning(number, 1, "flash-attn has no NPU build", "remove it"))
            if line.startswith("nvidia-"):
                found.append(
                    self.change(number, 1, "drop CUDA wheel", TextEdit(offset, offset, "# "))
                )
            offset += len(line)
        return found


class LaunchedScript(PythonRule):
    """Warns on a file the project's own launch commands run, naming the command. Why: a
    fixture that proves the project view reaches rules (through `ctx.project`) on every
    engine path: in this process, in worker processes, and through the cache's run key."""

    code = "TST090"
    action = "host-setup"
    name = "launched-script"
    summary = "Files a launch command runs (test fixture)."
    trigger = Trigger(tokens=("import",), unit=Unit.MODULE)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        entry = self.ctx.project.entry(self.ctx.path)
        if entry is not None and original_node.body:
            self.warn(original_node.body[0], f"launched by {entry.reason}")
        return updated_node


FIXTURE_RULES = (FlashAttnCall, EntrySetup, ShellCudaDevices, RequirementsFlashAttn)
# Code prefixes of the real rules the fixtures stand in for (NPU050-NPU149).
_STOOD_IN = ("NPU05", "NPU06", "NPU07", "NPU08", "NPU09", "NPU1")


@pytest.fixture
def project_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real registry plus `LaunchedScript` (TST090), as a generic rule."""
    real = registry.load()
    packages = {**real.packages, LaunchedScript: registry.GENERIC_PACKAGE}
    rules = tuple(sorted((*real.rules, LaunchedScript), key=lambda rule: rule.code))
    fake = dataclasses.replace(real, rules=rules, packages=packages)
    monkeypatch.setattr(registry, "load", lambda: fake)


@pytest.fixture
def fixture_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    real = registry.load()
    kept = [rule for rule in real.rules if not rule.code.startswith(_STOOD_IN)]
    packages = {rule: real.packages[rule] for rule in kept}
    packages.update({rule: registry.GENERIC_PACKAGE for rule in FIXTURE_RULES})
    rules = tuple(sorted((*kept, *FIXTURE_RULES), key=lambda rule: rule.code))
    fake = registry.Registry(rules, real.profiles, packages)
    monkeypatch.setattr(registry, "load", lambda: fake)
