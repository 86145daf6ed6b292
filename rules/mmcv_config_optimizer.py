"""Optimizer dicts of mmcv configs that build torch's Adam/AdamW/SGD unfused."""

from __future__ import annotations

import ast
import posixpath

import libcst as cst

from migrator import data
from migrator.analysis.cst_helpers import add_keyword, find_arg, has_keyword, string_value
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import RegionView, Trigger
from migrator.core.model import Safety
from migrator.core.project import EMPTY

_MM_PACKAGES = ("mmcv", "mmdet", "mmdet3d", "mmengine")
# The config variables whose dict (or whose `optimizer=dict(...)`) mmcv / mmengine build.
_OPTIMIZER = "optimizer"
_WRAPPER = "optim_wrapper"
# Already chosen, or not fusable (see NPU004).
_CHOSEN = ("fused", "foreach", "differentiable")


def _config_facts(tree: ast.Module, text: str) -> object:
    """Whether the file imports torch anywhere (configs do not), and its own fp16
    setting's line (the project view has the inherited ones)."""
    torch = False
    fp16 = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            torch = torch or any(a.name.split(".")[0] == "torch" for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            torch = torch or node.module.split(".")[0] == "torch"
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "fp16" for t in statement.targets
        ):
            value = statement.value
            if not (isinstance(value, ast.Constant) and value.value is None):
                fp16 = statement.lineno
    return (torch, fp16)


def _sets_optimizer(region: RegionView) -> bool:
    """Whether the region assigns `optimizer = dict(...)` or `optim_wrapper = dict(...)`
    outside any function or class (in a module-level `if`, `with`, `try`... too): the only
    statements the rule edits or reads."""
    pending = list(region.statements)
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.Assign):
            (target, *more) = statement.targets
            value = statement.value
            if (
                not more
                and isinstance(target, ast.Name)
                and target.id in (_OPTIMIZER, _WRAPPER)
                and isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id == "dict"
            ):
                return True
        elif not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for name in ("body", "orelse", "finalbody"):
                pending.extend(getattr(statement, name, ()))
            for part in (*getattr(statement, "handlers", ()), *getattr(statement, "cases", ())):
                pending.extend(part.body)
    return False


class MmcvConfigOptimizer(PythonRule):
    """Ask an mmcv config's optimizer for the fused kernel: `optimizer = dict(type='AdamW',
    ...)` -> `dict(type='AdamW', ..., fused=True)`.

    What it does: in an mmcv config of a project that imports mmcv / mmdet / mmdet3d /
    mmengine (a file under a `configs/` folder, or a module-level `optimizer = dict(...)`
    in a file that imports no torch), the module-level `optimizer = dict(type=...)` (or
    mmengine's `optim_wrapper = dict(optimizer=dict(type=...))`) that names torch's
    `AdamW` (`'AdamW'`, `'torch.optim.AdamW'`) gains `fused=True`; `Adam` and `SGD` only
    where the target torch-npu release has their kernel (the release data NPU004 reads).
    mmcv's `build_optimizer` passes every other key to `torch.optim.AdamW(params, ...)`, so
    the config is where the choice is made. The dict's layout is kept.

    Not added, and reported why, where mmcv's loss scaler drives the optimizer: the config
    or a `_base_` it inherits, or a config that inherits it (read statically), sets
    `fp16 = dict(...)`, an `optimizer_config` of type `Fp16OptimizerHook`, or an
    `AmpOptimWrapper`; or the project
    trains fp16 with a library's scaler. On an NPU that scaler is torch_npu's GradScaler,
    whose `step()` passes `grad_scaler=` to a fused optimizer's `step()`, which takes none:
    `TypeError` at the first step.

    Why: on Ascend every operator goes through the dispatch queue; the fused AdamW kernel
    torch_npu registers updates a parameter group in one launch (hand ports use
    `type='NpuFusedAdamW'`, the same kernel under torch_npu's name).

    Example: `optimizer = dict(type='AdamW', lr=2e-4, weight_decay=0.01)` ->
    `optimizer = dict(type='AdamW', lr=2e-4, weight_decay=0.01, fused=True)`.

    Safety: needs review: the fused kernel needs a float lr and every parameter floating
    point on the device, and a `_base_` outside the project is not read.
    """

    code = "NPU022"
    name = "mmcv-config-optimizer"
    summary = "mmcv config optimizer dict(type='AdamW'): fused=True unless mmcv's fp16 scaler runs."
    safety = Safety.REVIEW
    # An mmcv config is a Python file that mmcv's Config reads; a notebook cell is none.
    trigger = Trigger(
        tokens=("Adam", "SGD"),
        notebooks=False,
        region=_sets_optimizer,
        facts=_config_facts,
        local=True,
    )
    action = "review"
    examples = (
        Example(
            "optimizer = dict(type='AdamW', lr=2e-4, weight_decay=0.01)\n",
            "optimizer = dict(type='AdamW', lr=2e-4, weight_decay=0.01, fused=True)\n",
            path="configs/model.py",
        ),
        Example(
            "optimizer = dict(type='AdamW', lr=2e-4)\nfp16 = dict(loss_scale=512.0)\n",
            "optimizer = dict(type='AdamW', lr=2e-4)\nfp16 = dict(loss_scale=512.0)\n",
            path="configs/model.py",
        ),
        Example("import torch\noptimizer = dict(type='AdamW', lr=2e-4)\n", path="train.py"),
    )

    def _is_config(self) -> bool:
        project = self.ctx.project
        mm = any(project.imports_package(package) for package in _MM_PACKAGES)
        # Without a project view (an example, one file on its own) a `configs/` folder says
        # it; a real run always has one (its target release at least).
        if not mm and (project != EMPTY or "configs" not in self.ctx.path.split("/")):
            return False
        facts = self.ctx.facts
        torch = isinstance(facts, tuple) and bool(facts[0])
        return not torch

    def _fp16(self) -> str | None:
        facts = self.ctx.facts
        if isinstance(facts, tuple) and isinstance(facts[1], int):
            return f"fp16 = ... (line {facts[1]})"
        found = self.ctx.project.fp16_of_config(self.ctx.path)
        if found is not None:
            return found.reason
        scalers = self.ctx.project.fp16_scalers
        if scalers:
            return f"fp16 with a library's GradScaler ({scalers[0].reason})"
        return None

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        # Function and class bodies: only module-level settings are the config's.
        self._nested = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._nested += 1

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._nested -= 1
        return updated_node

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._nested += 1

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.ClassDef:
        self._nested -= 1
        return updated_node

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        if len(original_node.targets) != 1 or self._nested:
            return updated_node
        target = original_node.targets[0].target
        if not isinstance(target, cst.Name) or target.value not in (_OPTIMIZER, _WRAPPER):
            return updated_node
        call = updated_node.value
        if not self._is_dict(call):
            return updated_node
        assert isinstance(call, cst.Call)
        if target.value == _WRAPPER:
            inner = find_arg(call, None, _OPTIMIZER)
            if inner is None or not self._is_dict(inner.value):
                return updated_node
            assert isinstance(inner.value, cst.Call)
            fused = self._fused(original_node, inner.value)
            if fused is None:
                return updated_node
            args = [arg.with_changes(value=fused) if arg is inner else arg for arg in call.args]
            replacement = updated_node.with_changes(value=call.with_changes(args=args))
        else:
            fused = self._fused(original_node, call)
            if fused is None:
                return updated_node
            replacement = updated_node.with_changes(value=fused)
        return self.edit(
            original_node,
            updated_node,
            replacement,
            "mmcv config optimizer: added fused=True (the fused "
            f"{self.target.name} kernel; needs a float lr)",
        )

    def _is_dict(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value == "dict"
            and not self.is_bound("dict")
        )

    def _fused(self, statement: cst.Assign, call: cst.Call) -> cst.Call | None:
        """The optimizer dict with `fused=True`, or None (reported where it matters)."""
        kind = find_arg(call, None, "type")
        name = string_value(kind.value) if kind is not None else None
        if name is None:
            return None
        short = name.removeprefix("torch.optim.")
        if short not in ("Adam", "AdamW", "SGD") or has_keyword(call, *_CHOSEN):
            return None
        if not self._is_config() or posixpath.basename(self.ctx.path) == "setup.py":
            return None
        if any(arg.star for arg in call.args):
            return None
        if short not in data.fused_optimizers(self.ctx.project.target_release.version):
            return None
        fp16 = self._fp16()
        if fp16 is not None:
            self.warn(
                statement,
                f"mmcv config optimizer {short}: fused=True not added: {fp16} makes mmcv "
                "step it through torch_npu's GradScaler, which passes grad_scaler= to a fused "
                "optimizer's step() (TypeError)",
                "leave it unfused, or train without the fp16 loss scaler and add fused=True",
            )
            return None
        return add_keyword(call, "fused", cst.Name("True"))
