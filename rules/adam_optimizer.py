"""Adam, AdamW and SGD optimizers built without choosing an implementation."""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from migrator import data
from migrator.analysis.ast_lines import nested_statements, walk
from migrator.analysis.cst_helpers import add_keyword, find_arg, has_keyword, has_star_kwargs
from migrator.analysis.grad_scalers import npu_scaler_line
from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import FileView, Trigger
from migrator.core.model import Safety

# Qualified name -> the optimizer class (`data.FUSED_OPTIMIZER_KERNELS`' keys).
_OPTIMIZERS = {
    "torch.optim.Adam": "Adam",
    "torch.optim.adam.Adam": "Adam",
    "torch.optim.AdamW": "AdamW",
    "torch.optim.adamw.AdamW": "AdamW",
    "torch.optim.SGD": "SGD",
    "torch.optim.sgd.SGD": "SGD",
}
# Given by the caller: the implementation is chosen already (or cannot be fused).
_CHOSEN = ("foreach", "differentiable")


@dataclass(frozen=True)
class _Facts:
    scaler_line: int | None
    # Names assigned a mapping that spells `fused` (`dict(fused=True)`, `{"fused": ...}`).
    fused_kwargs: frozenset[str]


def _star_names(call: cst.Call) -> set[str]:
    return {
        arg.value.value for arg in call.args if arg.star == "**" and isinstance(arg.value, cst.Name)
    }


def _spells_fused(node: ast.AST) -> bool:
    for inner in walk(node):
        if isinstance(inner, ast.Call) and any(k.arg == "fused" for k in inner.keywords):
            return True
        if isinstance(inner, ast.Dict) and any(
            isinstance(k, ast.Constant) and k.value == "fused" for k in inner.keys
        ):
            return True
    return False


def _fused_kwargs(tree: ast.Module) -> frozenset[str]:
    """Names the file assigns a mapping that chooses `fused` (anywhere in the file)."""
    names: set[str] = set()
    # Assignments are statements: no expression outside their values is walked.
    for node in nested_statements(tree.body):
        if isinstance(node, ast.Assign) and _spells_fused(node.value):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif (
            isinstance(node, ast.AnnAssign)
            and node.value is not None
            and isinstance(node.target, ast.Name)
            and _spells_fused(node.value)
        ):
            names.add(node.target.id)
    return frozenset(names)


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """It acts on (and reports) calls of torch's optimizers only."""
    return not names.isdisjoint(_OPTIMIZERS)


def _file_facts(tree: ast.Module, text: str) -> _Facts:
    """The torch_npu GradScaler line and the names holding `fused` kwargs. Every name of
    torch_npu's GradScaler spells "GradScaler" (`NPU_SCALERS`), in the import that binds
    it or in the name itself: a text without it has none (one with a character outside
    ASCII is read whole, since the parser folds some names' spelling)."""
    scaler = npu_scaler_line(tree) if "GradScaler" in text or not text.isascii() else None
    return _Facts(scaler, _fused_kwargs(tree))


class AdamOptimizer(PythonRule):
    """Ask `torch.optim.Adam` / `AdamW` / `SGD` for the fused kernel: add `fused=True`.

    What it does: a call of `torch.optim.AdamW(...)`, `Adam(...)` or `SGD(...)` (found by
    qualified name: `import torch.optim as optim`, `from torch.optim import AdamW as AW`)
    that passes neither `fused` nor `foreach` gains `fused=True` where the target torch-npu
    release (`--torch-npu`, see the README) has that kernel: fused AdamW in every release
    of the data; fused Adam and SGD (`_fused_adam_`, `_fused_sgd_`) only from 2.7.1.post11
    on; elsewhere the call is left alone (without the kernel the op falls back to the CPU,
    with a host copy of the optimizer state, every step). It keeps the call's layout
    (a multi-line call stays one argument per line). An explicit `fused=False` is reported,
    not changed (someone chose it); so is a call with `**kwargs`, which may already hold
    `fused` or `foreach` (adding it could raise "got multiple values"), unless the file
    builds that mapping with a `fused` key (nanoGPT's `extra_args = dict(fused=True) if
    use_fused else dict()`, whose `use_fused` NPU010 turns on for the NPU): the kwargs
    choose, and nothing is said. `fused=<expr>` and
    code that decides fusion itself (`fused=use_fused`, with `use_fused` computed from the
    device type) are left to the device-string rules. `differentiable=...` is left alone:
    the fused kernel does not support it.

    Not added, and reported why, where torch_npu's own GradScaler may drive the optimizer:
    the file uses `torch.npu.amp.GradScaler` (a `GradScaler` imported from
    `torch.cuda.amp` becomes torch's own, `torch.amp.GradScaler`: NPU012), or the project
    trains fp16 with a library's scaler (accelerate's `mixed_precision: fp16` /
    `--mixed_precision fp16`, the Trainer's `--fp16`, as its configs and launch scripts
    say). torch_npu's `GradScaler.step` passes
    `grad_scaler=self` to optimizers that declare `_step_supports_amp_scaling`; torch
    2.7.1's fused Adam/AdamW/SGD declare it, but their `step(closure=None)` takes no such
    argument: `TypeError` at the first `scaler.step()` on every release checked.

    Why: torch_npu registers a fused Adam/AdamW kernel for parameters on the NPU, which
    updates a whole parameter group in one kernel launch. Without `fused`, torch falls back
    to its multi-tensor `foreach` path (or the per-parameter loop), several operators per
    step; on Ascend every operator goes through the dispatch queue, so the fused kernel is
    the cheaper step.

    Example: `torch.optim.AdamW(params, lr=1e-4)` -> `torch.optim.AdamW(params, lr=1e-4,
    fused=True)`.

    Safety: needs review. The fused kernel takes a float learning rate only (a Tensor `lr`,
    in the group or the call, fails at the first step), needs every parameter to be a
    floating-point tensor on the device, and rounds slightly differently from the foreach
    path (loss curves match, bit-exact resumes across the change do not).
    """

    code = "NPU004"
    action = "port-code"
    name = "adam-optimizer"
    summary = (
        "Adam/AdamW/SGD without fused/foreach: fused=True where the target torch-npu "
        "has the kernel."
    )
    safety = Safety.REVIEW
    trigger = Trigger(
        tokens=("Adam", "SGD"), names=_names_gate, facts=_file_facts, local=True, elements=True
    )
    examples = (
        Example(
            "import torch\nopt = torch.optim.AdamW(model.parameters(), lr=1e-4)\n",
            "import torch\nopt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)\n",
        ),
        Example(
            "from torch.optim import Adam as A\nopt = A(\n    params,\n    lr=1e-3,\n)\n",
            "from torch.optim import Adam as A\nopt = A(\n    params,\n    lr=1e-3,\n"
            "    fused=True,\n)\n",
        ),
        Example(
            "import torch\nopt = torch.optim.AdamW(params, lr=1e-4, foreach=True)\n",
            None,
        ),
        Example(
            "class AdamW:\n    pass\nopt = AdamW(params)\n",
            None,
        ),
        Example(
            "import torch\nopt = torch.optim.AdamW(params)\nscaler = torch.npu.amp.GradScaler()\n",
            "import torch\nopt = torch.optim.AdamW(params)\nscaler = torch.npu.amp.GradScaler()\n",
        ),
    )

    def _facts(self) -> _Facts:
        facts = self.ctx.facts
        return facts if isinstance(facts, _Facts) else _Facts(None, frozenset())

    def _npu_scaler(self) -> str | None:
        """Why torch_npu's GradScaler may drive this file's optimizers, if it may."""
        line = self._facts().scaler_line
        if line is not None:
            return f"torch_npu's GradScaler (line {line})"
        project = self.ctx.project.fp16_scalers
        if project:
            return f"fp16 with a library's GradScaler ({project[0].reason})"
        return None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        name = self.qualname(original_node.func)
        short = _OPTIMIZERS.get(name or "")
        if short is None:
            return updated_node
        fused = find_arg(updated_node, None, "fused")
        if fused is not None:
            if isinstance(fused.value, cst.Name) and fused.value.value == "False":
                self.warn(
                    original_node,
                    f"{short}(fused=False) kept: the fused kernel is the faster step on the "
                    f"{self.target.name}",
                    "use fused=True unless fused=False was chosen for a reason",
                )
            return updated_node
        if has_keyword(updated_node, *_CHOSEN):
            return updated_node
        if has_star_kwargs(updated_node):
            if _star_names(original_node) & self._facts().fused_kwargs:
                # `extra_args = dict(fused=True) if use_fused else dict()` (nanoGPT): the
                # kwargs choose, and NPU010 has just made `use_fused` true on the NPU.
                return updated_node
            self.warn(
                original_node,
                f"{short}(**kwargs): not given fused=True (the kwargs may already choose)",
                "pass fused=True (and no foreach) where the kwargs are built",
            )
            return updated_node
        release = self.ctx.project.target_release.version
        if short not in data.fused_optimizers(release):
            # No kernel: leave the foreach path (the fallback would copy to the CPU).
            return updated_node
        scaler = self._npu_scaler()
        if scaler is not None:
            self.warn(
                original_node,
                f"{short}: fused=True not added: {scaler} passes grad_scaler= to a "
                "fused optimizer's step(), which takes none (TypeError at scaler.step())",
                'use torch.amp.GradScaler("npu", ...) and then fused=True, or leave fused off',
            )
            return updated_node
        replacement = add_keyword(updated_node, "fused", cst.Name("True"))
        return self.edit(
            original_node,
            updated_node,
            replacement,
            f"{short}: added fused=True (fused {self.target.name} kernel; needs a float lr, "
            "not a Tensor)",
        )
