"""torch / torch_npu names that the target host's releases do not have."""

from __future__ import annotations

import libcst as cst

from migrator import data
from migrator.analysis.cst_helpers import dotted_name
from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import FileView, TokenPattern, Trigger
from migrator.core.model import FixAvailability
from migrator.core.project import ProjectView

# Modules whose public names the data records completely (every top-level binding of the
# released sources; torch_npu's custom ops from its kernel list): only names under these
# are checked. Not torch.backends.* (cudnn's flags are properties of a module class) nor
# torch.distributed (names bound from C++), nor torch itself (mostly C++).
_TORCH_MODULES = frozenset({"torch.accelerator", "torch.amp", "torch.cuda", "torch.cuda.amp"})
_TORCH_NPU_MODULES = frozenset({"torch_npu", "torch_npu.npu", "torch_npu.npu.amp", "torch.npu"})
_TORCH_NPU_MODULES |= {"torch.npu.amp"}


def missing(qualified: str, project: ProjectView) -> str | None:
    """Why `qualified` is absent on the project's target host (a message), or None."""
    if not qualified.startswith("torch"):
        return None
    release = project.target_release.version
    torch = data.torch_npu_release(release).torch_version
    checks_torch = torch in data.versions("torch")
    parts = qualified.split(".")
    for end in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:end])
        if module in _TORCH_NPU_MODULES:
            package, version, label = "torch_npu", release, f"torch-npu {release}"
        elif module in _TORCH_MODULES and checks_torch:
            package, version, label = "torch", torch, f"torch {torch}"
        else:
            continue
        name = parts[end]
        if name.startswith("_") or name in data.names(package, version, module):
            return None
        return f"{label} has no {module}.{name}"
    return None


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """A region where no name is missing on the host holds nothing to report."""
    return any(missing(name, view.project) is not None for name in names)


class TorchVersionDrift(PythonRule):
    """Report `torch.*` / `torch_npu.*` names that the target host's releases lack.

    What it does: a dotted name, found by qualified name (`import torch as th;
    th.accelerator.device_index()`, `from torch.accelerator import memory`), under a module
    whose public names the committed data (`migrator/data/`) records completely --
    `torch.accelerator`, `torch.amp`, `torch.cuda`, `torch.cuda.amp` (torch 2.7.1, the torch
    of the 2.7.1 torch-npu releases), `torch.npu`, `torch.npu.amp`, `torch_npu`,
    `torch_npu.npu` (the target torch-npu release, `--torch-npu`) -- that is not among that
    module's names is reported. Private names (`_x`) and names of other modules are not
    checked. torch's names are checked only when the target release is built for a torch
    the data describes (torch 2.7.1).

    Why: the migration is checked on the machine's newer torch; a host runs torch 2.7.1 with
    torch-npu 2.7.1.postN. Code that calls an API added later (`torch.accelerator.
    device_index`, `torch.accelerator.memory`) passes here and fails there with
    AttributeError.

    Example: `torch.accelerator.device_index()` is reported: "torch 2.7.1 has no
    torch.accelerator.device_index".

    Safety: reports only. A call guarded by `hasattr(...)` or a torch version check is
    reported too; read it and suppress it with `# migrate: ignore[NPU078]`.
    """

    code = "NPU078"
    action = "decide-version"
    name = "torch-version-drift"
    summary = "Report torch/torch_npu names absent from the target host's releases (torch 2.7.1)."
    fix_availability = FixAvailability.NEVER
    # A name under one of the checked modules, spelt out, through an alias of an import,
    # or through an import inside a function (`import torch as t` there, then `t.cuda.x`).
    trigger = Trigger(
        tokens=("torch.accelerator", "torch.amp", "torch.cuda", "torch.npu", "torch_npu"),
        patterns=(TokenPattern("torch", r"\bimport\b[^\n]*\btorch\b|\bfrom\s+torch\b"),),
        # Each of those ways names a checked module: the pattern alone is in nearly
        # every file of a torch project.
        needs=(
            *(TokenPattern(name, rf"\b{name}\b") for name in ("accelerator", "amp", "cuda", "npu")),
            TokenPattern("torch_npu", "torch_npu"),
        ),
        words=True,
        names=_names_gate,
        local=True,
    )
    examples = (
        Example(
            "import torch as th\nindex = th.accelerator.device_index()\n",
            "import torch as th\nindex = th.accelerator.device_index()\n",
        ),
        Example(
            "from torch.accelerator import memory\n",
            "from torch.accelerator import memory\n",
        ),
        Example("import torch\nn = torch.accelerator.device_count()\n"),
        Example("accelerator = obj\naccelerator.device_index()\n"),
    )

    def _missing(self, qualified: str) -> str | None:
        return missing(qualified, self.ctx.project)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        qualified = self.qualname(node)
        if qualified is None:
            return True
        message = self._missing(qualified)
        if message is not None:
            self.warn(node, message, "use an API the host's release has, or guard it")
        # The inner chain (`torch.accelerator` of `torch.accelerator.memory`) is checked.
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        module = dotted_name(node.module) if node.module is not None else None
        if module is None or node.relative or isinstance(node.names, cst.ImportStar):
            return False
        for alias in node.names:
            name = dotted_name(alias.name)
            message = None if name is None else self._missing(f"{module}.{name}")
            if message is not None:
                self.warn(alias, message, "use an API the host's release has, or guard it")
        return False
