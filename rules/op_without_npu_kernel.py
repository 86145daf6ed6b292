"""Calls of torch operators that the target torch-npu release has no NPU kernel for."""

from __future__ import annotations

import libcst as cst

from migrator import data
from migrator.analysis.ast_lines import calls_or_imports
from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import FileView, TokenPattern, Trigger, any_of
from migrator.contract.unsupported import fill
from migrator.core.model import FixAvailability
from migrator.core.project import ProjectView

# Python namespace -> the prefix its functions have as aten ops (`torch.linalg.eig` is
# `aten::linalg_eig`); torch.nn.functional's functions call the aten op of their own name.
_NAMESPACES = {
    "torch": "",
    "torch.nn.functional": "",
    "torch.linalg": "linalg_",
    "torch.special": "special_",
}
# A replacement with an NPU kernel, where one is known (mx-driving 26.1/26.2 `__all__`).
_REPLACEMENTS = {
    "hypot": "use {extension_ops}.hypot(x, y) (an {DEVICE} kernel) or torch.sqrt(x * x + y * y)",
}


def _candidates() -> tuple[str, ...]:
    """Every name some release in the data lacks: the file gate (tokens)."""
    missing: set[str] = set()
    for version in data.versions():
        missing |= {op for op in data.backend_ops() if data.lacks_npu_kernel(version, op)}
    names = {op.removeprefix("linalg_").removeprefix("special_") for op in missing}
    return tuple(sorted(name for name in names if not name.startswith("_")))


def _called_or_imported() -> tuple[TokenPattern, ...]:
    """The file gate (`needs`): a call by qualified name spells the operator after a dot
    (`torch.hypot`, `F.huber_loss`, `th.special.xlogy`) or names it in an import (`from
    torch import hypot as h`); a docstring or a `def lgamma` does neither. One regex for
    all the operators: one per operator searched a stub that names dozens of them dozens
    of times (seven times slower over 772 of torch's files)."""
    names = any_of(_candidates())
    return (
        TokenPattern(".", rf"\.[\s\\]*(?:{names})\b"),
        TokenPattern("import", rf"import[ \t]*(?:\([^)]*?|(?:[^\n\\]|\\[\s\S])*?)\b(?:{names})\b"),
    )


def lacking_op(name: str, project: ProjectView) -> str | None:
    """The aten op a call of `name` runs, where the target release has no NPU kernel for
    it; else None."""
    namespace, dot, function = name.rpartition(".")
    prefix = _NAMESPACES.get(namespace) if dot else None
    if prefix is None or function.startswith("_"):
        return None
    op = prefix + function
    return op if data.lacks_npu_kernel(project.target_release.version, op) else None


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """A region that names no op lacking a kernel calls none."""
    return any(lacking_op(name, view.project) is not None for name in names)


class OpWithoutNpuKernel(PythonRule):
    """Report calls of `torch.*` / `torch.nn.functional.*` / `torch.linalg.*` /
    `torch.special.*` operators that have no NPU kernel in the target torch-npu release.

    What it reports: a call such as `torch.hypot(x, y)`, `torch.lgamma(x)`,
    `torch.linalg.eig(a)` or `F.huber_loss(a, b)` (by qualified name, aliases included)
    whose aten op needs a kernel per device and has none, in any overload, in the target
    release (`--torch-npu`, see the README). Both facts come from the committed data
    (`migrator/data/`, generated from the released wheels): torch 2.7.1's
    `native_functions.yaml` says which ops need a per-device kernel (a CUDA dispatch entry,
    directly or through a structured delegate; composite ops are computed from other ops and
    are not reported), and the torch-npu wheel's `npu_native_functions*.yaml` lists the ops
    it registers NPU kernels for.

    Why: torch_npu runs an op without an NPU kernel through its CPU fallback ("... is not
    currently supported on the NPU backend and will fall back to run on the CPU",
    `libtorch_npu.so`): every call copies its inputs to the host and the result back, which
    stalls the device queue inside a training step, and with
    `TORCH_NPU_FALLBACK_CPU_DISABLE=1` the call fails instead.

    Example: `vel = torch.hypot(state[..., 3], state[..., 4])` is reported, suggesting
    `mx_driving.hypot(x, y)` (an NPU kernel) or `torch.sqrt(x * x + y * y)`; elsewhere it
    suggests composing the op from ops that have NPU kernels, or moving a rare call to the
    CPU on purpose.

    Safety: reports only: the replacement may round differently.

    Caveats: tensor methods (`x.hypot(y)`, `x.lgamma()`) are not reported: the type of `x`
    is not known statically, and a method name alone does not say which op runs (a
    warning on every such method would be mostly noise). Where an op has an NPU kernel but
    a variant of its arguments may not (for example `torch.unique(..., dim=0)`, whose
    `aten::unique_dim` the torch-npu wheels do register), nothing is reported: the data
    lists kernels per op, not per argument. A call on CPU tensors (data loading, metrics)
    is reported too, where it costs nothing: `# migrate: ignore[NPU080]` keeps it. Ops are
    checked against torch 2.7.1's op list, the torch the data records.
    """

    code = "NPU080"
    action = "port-code"
    fix_availability = FixAvailability.NEVER
    name = "op-without-npu-kernel"
    summary = "Report torch operators with no NPU kernel in the target torch-npu (CPU fallback)."
    trigger = Trigger(
        tokens=_candidates(),
        needs=_called_or_imported(),
        words=True,
        statement_gate=calls_or_imports,
        names=_names_gate,
        # It reports calls only (`leave_Call`).
        names_called=True,
        local=True,
        elements=True,
    )
    examples = (
        Example(
            "import torch\nvel = torch.hypot(vx, vy)\n",
            "import torch\nvel = torch.hypot(vx, vy)\n",
        ),
        Example("import torch\nvel = torch.sqrt(vx * vx + vy * vy)\n"),
        Example("def hypot(a, b):\n    return a\nvel = hypot(vx, vy)\n"),
    )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        name = self.qualname(original_node.func)
        op = None if name is None else lacking_op(name, self.ctx.project)
        if op is None or name is None:
            return updated_node
        release = self.ctx.project.target_release.version
        suggestion = _REPLACEMENTS.get(
            op,
            "compose it from ops with {DEVICE} kernels, or move a rare call to the CPU on purpose",
        )
        self.warn(
            original_node,
            fill(
                f"{name}(): aten::{op} has no {{DEVICE}} kernel in torch-npu {release} (the "
                "wheel's kernel list): torch_npu runs it on the CPU, copying its inputs each call",
                self.target,
            ),
            fill(suggestion, self.target),
        )
        return updated_node
