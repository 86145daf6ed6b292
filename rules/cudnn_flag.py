"""cuDNN switches (`torch.backends.cudnn.*`), which do nothing on the NPU."""

from __future__ import annotations

import libcst as cst

from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import FileView, Trigger
from migrator.core.model import FixAvailability

_CUDNN = "torch.backends.cudnn"


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """Every report is at a member of torch.backends.cudnn (a test table's `"cudnn"`
    keys and strings are not)."""
    return any(name.startswith(_CUDNN + ".") for name in names)


class CudnnFlag(PythonRule):
    """Report cuDNN switches: they have no NPU equivalent and do nothing there.

    What it does: warns, once per reference (assignment or read), about
    `torch.backends.cudnn.benchmark`, `.deterministic`, `.enabled` and any other
    `torch.backends.cudnn` member (`is_available()`, `version()`, `flags(...)`), however
    torch or cudnn is imported (`from torch.backends import cudnn`). It never rewrites:
    the right replacement depends on what the code wanted. `allow_tf32` is NPU014's.

    Why: there is no cuDNN on an Ascend host. `benchmark` and `enabled` are then no-ops and
    `deterministic = True` does not make NPU kernels deterministic, so a run that relied on it
    for reproducibility silently is not; `torch.backends.cudnn.is_available()` is False.
    For determinism on the NPU use `torch.use_deterministic_algorithms(True)` and set
    `HCCL_DETERMINISTIC=true` for collectives.

    Example: `torch.backends.cudnn.deterministic = True` is reported with that suggestion.

    Left alone: log text, a parameter or local named `torch`.

    Safety: reports only.
    """

    code = "NPU015"
    action = "port-code"
    fix_availability = FixAvailability.NEVER
    name = "cudnn-flag"
    summary = "cuDNN switches (benchmark, deterministic, enabled): no NPU equivalent, reported."
    trigger = Trigger(tokens=("cudnn",), words=True, names=_names_gate, local=True)
    examples = (
        Example(
            "import torch\ntorch.backends.cudnn.benchmark = True\n",
            "import torch\ntorch.backends.cudnn.benchmark = True\n",
        ),
        Example('import torch\nprint("cudnn.benchmark on")\n', None),
    )

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        qualified = self.qualname(node)
        if qualified is None:
            return True
        if not qualified.startswith(_CUDNN + ".") or qualified in self.target.tf32_flags:
            return False
        member = qualified[len(_CUDNN) + 1 :].split(".", 1)[0]
        message, suggestion = self._advice(member)
        self.warn(node, message, suggestion)
        return False

    def _advice(self, member: str) -> tuple[str, str]:
        where = f"{_CUDNN}.{member}"
        if member == "deterministic":
            prefix = self.target.env_prefix
            env = f" and set {prefix[1]}DETERMINISTIC=true for collectives" if prefix else ""
            label = self.target.name.upper()
            return (
                f"{where} has no {label} equivalent and does not make its kernels deterministic",
                f"use torch.use_deterministic_algorithms(True){env}",
            )
        if member in ("benchmark", "enabled"):
            return (
                f"{where} has no {self.target.name.upper()} equivalent: it does nothing there",
                "drop it, or keep it only for CUDA runs",
            )
        return (
            f"{where} is cuDNN-only: there is no cuDNN on the {self.target.name.upper()}",
            "check what the code does when cuDNN is absent",
        )
