"""Suggestion: torch_npu.npu_rms_norm for hand-written RMSNorm modules."""

from __future__ import annotations

import re

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.ast_lines import defines_function
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import fill, reported
from migrator.core.model import FixAvailability

_RMS_NORM_CLASS = re.compile(r"rms_?norm$", re.IGNORECASE)


class _Math(cst.CSTVisitor):
    """Whether code computes x * rsqrt(mean(x ** 2) + eps)."""

    def __init__(self) -> None:
        self.rsqrt = False
        self.square = False
        self.mean = False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = node.attr.value
        self.rsqrt |= name == "rsqrt"
        self.mean |= name == "mean"
        self.square |= name == "square"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "pow" and node.args:
            value = node.args[-1].value
            self.square |= isinstance(value, cst.Integer) and value.value == "2"

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Power) and isinstance(node.right, cst.Integer):
            self.square |= node.right.value == "2"


class RmsNormModule(PythonRule):
    """Suggest, as a note, the fused `torch_npu.npu_rms_norm` for hand-written RMSNorm
    modules: a class whose name ends in "RMSNorm" (`LlamaRMSNorm`, `Qwen2RMSNorm`,
    `RMSNorm`, `rms_norm`) with a `forward` that computes `rsqrt` of the `mean` of the
    squared input (`x.pow(2)`, `x ** 2`, `x.square()`).

    What it reports: the `forward` method of such a class, once. Classes with other names,
    and RMSNorm classes whose forward already calls something else (`torch_npu.npu_rms_norm`,
    `F.rms_norm`), are left alone.

    Why: the hand-written form runs as five or six small NPU kernels (cast, pow, mean, add,
    rsqrt, mul) per call, in every layer; the hand ports replaced it with the fused kernel:
    `return torch_npu.npu_rms_norm(x, self.weight, epsilon=self.eps)[0]` (it returns a
    tuple; the first item is the normalised tensor).

    Example: transformers-style `LlamaRMSNorm.forward` with
    `variance = hidden_states.pow(2).mean(-1, keepdim=True)` and
    `hidden_states * torch.rsqrt(variance + self.variance_epsilon)` gets the note.

    Safety: a suggestion, never an edit (suggestions are NPU090-NPU099; `--ignore NPU09`
    drops them). Keep the module's dtype handling: many forwards compute in float32 and
    cast back; check the fused kernel's accuracy for your dtype.

    Caveats: an RMSNorm variant with an offset (`1 + weight`, Gemma) needs the offset
    added to the weight first.
    """

    code = "NPU092"
    action = "suggestion"
    fix_availability = FixAvailability.NEVER
    name = "rms-norm-module"
    summary = "Suggest torch_npu.npu_rms_norm for hand-written RMSNorm modules (one fused kernel)."
    trigger = Trigger(
        tokens=("rsqrt",), statement_gate=defines_function("forward"), local=True, reads_around=True
    )
    examples = (
        reported(
            "import torch\n\n\nclass RMSNorm(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        variance = x.pow(2).mean(-1, keepdim=True)\n"
            "        return self.weight * x * torch.rsqrt(variance + self.eps)\n"
        ),
        Example(
            "import torch\n\n\nclass LayerNorm(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return (x - x.mean(-1)) * torch.rsqrt(x.var(-1) + self.eps)\n"
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._classes: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node.name.value)

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.ClassDef:
        self._classes.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value != "forward" or not self._classes:
            return
        if not _RMS_NORM_CLASS.search(self._classes[-1]):
            return
        math = _Math()
        cst_walk.visit(node.body, math)
        if math.rsqrt and math.square and math.mean:
            self.warn(
                node,
                fill(
                    f"suggestion: {self._classes[-1]}.forward computes RMSNorm in several "
                    "kernels; the {DEVICE} has a fused one",
                    self.target,
                ),
                fill(
                    "return {rms_norm}(x, self.weight, epsilon=self.eps)[0] (a tuple: the "
                    "normalised tensor first)",
                    self.target,
                ),
            )
