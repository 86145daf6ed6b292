"""`torch.inference_mode` regions and decorators."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import find_arg
from migrator.contract.names import SpeltNames, bound_reference, imported_reference
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import FileView, Trigger
from migrator.core.model import Safety

_INFERENCE_MODES = frozenset(
    {
        "torch.inference_mode",
        "torch.autograd.inference_mode",
        "torch.autograd.grad_mode.inference_mode",
    }
)
_NO_INFERENCE_TENSORS = (
    "code inside may turn grad back on (inference tensors cannot be saved for backward)"
)
# Where torch defines the grad-mode context managers (all three export the same classes).
_GRAD_MODULES = ("torch", "torch.autograd", "torch.autograd.grad_mode")
_LOW_PRECEDENCE = (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """Every edit and report is at a reference to torch's inference_mode."""
    return not names.isdisjoint(_INFERENCE_MODES)


class InferenceMode(SpeltNames, PythonRule):
    """Turn `torch.inference_mode` into the `no_grad` equivalent.

    What it does: `@torch.inference_mode()`, a bare `@torch.inference_mode`,
    `with torch.inference_mode():` and any other `torch.inference_mode()` call become
    `torch.no_grad` with the same shape. The mode argument is translated faithfully:
    `inference_mode(False)` / `mode=False` keeps grad *on* (disabling inference mode
    re-enables grad mode, even inside `no_grad`), so it becomes `torch.enable_grad()`;
    `mode=True` becomes `no_grad()`. A mode given as an expression becomes
    `torch.set_grad_enabled(not <expr>)` in a `with` item or a decorator, the two places
    where that is exact (`set_grad_enabled` changes the grad mode as soon as it is built,
    so a call stored for later use is reported instead). The file's own spelling is kept:
    `th.inference_mode()` becomes `th.no_grad()`; for a from-imported name
    (`from torch import inference_mode as im`) the rule uses a name already bound to
    `torch.no_grad`, else requests `from torch import no_grad`.

    Why: under DeepSpeed ZeRO-3 (how DiT4DiT is trained on Ascend), code that runs inside
    inference mode but turns grad back on fails with "Inference tensors cannot be saved for
    backward": DiT4DiT's `predict_action` is decorated with `@torch.inference_mode()` and
    its backbone call reaches `Cosmos25.forward`, which enters `torch.enable_grad()`.
    Tensors made under inference mode can never enter autograd; tensors made under
    `no_grad` are ordinary tensors, so code inside may turn grad back on. (The "tensor has
    no storage" explanation in circulation is not the real error.)

    Example: `@torch.inference_mode()` -> `@torch.no_grad()`.

    Safety: needs review. `no_grad` is a little slower (it keeps version counters) and
    tensors it creates may later enter autograd, which inference tensors never could;
    `torch.is_inference_mode_enabled()` checks inside the region now return False.
    Caveats: a from-import of `inference_mode` that is no longer used stays in place (the
    rule adds imports, it never removes them); other references to the function (passed
    around, stored) are reported, not rewritten.
    """

    code = "NPU002"
    action = "port-code"
    name = "inference-mode"
    summary = "torch.inference_mode regions and decorators to the torch.no_grad equivalent."
    safety = Safety.REVIEW
    trigger = Trigger(tokens=("inference_mode",), names=_names_gate, local=True)
    # Not a device edit: it applies inside code that already handles the NPU too.
    leaves_device_regions = False
    examples = (
        Example(
            "import torch\n@torch.inference_mode()\ndef predict(model, x):\n    return model(x)\n",
            "import torch\n@torch.no_grad()\ndef predict(model, x):\n    return model(x)\n",
        ),
        Example(
            "import torch as th\nwith th.inference_mode(mode=False):\n    y = model(x)\n",
            "import torch as th\nwith th.enable_grad():\n    y = model(x)\n",
        ),
        Example(
            "from torch import inference_mode as im\nwith im():\n    y = model(x)\n",
            "from torch import no_grad, inference_mode as im\nwith no_grad():\n    y = model(x)\n",
        ),
        Example(
            'def f(torch):\n    with torch.inference_mode():\n        print("inference_mode")\n',
            None,
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        # ids of original nodes: references this rule rewrites, and calls that are entered
        # as a context or applied as a decorator (where set_grad_enabled(...) is exact).
        self._handled: set[int] = set()
        self._contexts: set[int] = set()

    # A call: `torch.inference_mode(...)` anywhere -----------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self.qualname(node.func) in _INFERENCE_MODES:
            self._handled.add(id(node.func))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node.func) not in self._handled:
            return updated_node
        return self._call(original_node, updated_node, id(original_node) in self._contexts)

    # A bare decorator: `@torch.inference_mode` -------------------------------------
    def visit_Decorator(self, node: cst.Decorator) -> None:
        if isinstance(node.decorator, cst.Call):
            self._contexts.add(id(node.decorator))
        elif self._is_inference_mode(node.decorator):
            self._handled.add(id(node.decorator))

    def leave_Decorator(
        self, original_node: cst.Decorator, updated_node: cst.Decorator
    ) -> cst.Decorator:
        if isinstance(original_node.decorator, cst.Call):
            return updated_node
        if id(original_node.decorator) not in self._handled:
            return updated_node
        new_func = self._renamed(updated_node.decorator, "no_grad")
        if new_func is None:
            self._cannot_name(original_node, "no_grad")
            return updated_node
        return self.edit(
            original_node,
            updated_node,
            updated_node.with_changes(decorator=new_func),
            f"@inference_mode -> @no_grad: {_NO_INFERENCE_TENSORS}",
        )

    # Other references: `ctx = torch.inference_mode` -------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> bool:
        # The attribute's own name is not a reference (`x.inference_mode` is not ours).
        self._handled.add(id(node.attr))
        if id(node) not in self._handled and self._is_inference_mode(node):
            self._unhandled(node)
            return False
        return True

    def visit_Name(self, node: cst.Name) -> None:
        # `f(inference_mode=x)`, `def f(inference_mode=False)` only spell the name.
        if id(node) not in self._handled and not self.spelt(node) and self._is_inference_mode(node):
            self._unhandled(node)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if isinstance(node.item, cst.Call):
            self._contexts.add(id(node.item))

    # Helpers --------------------------------------------------------------------
    def _is_inference_mode(self, node: cst.BaseExpression) -> bool:
        return self.qualname(node) in _INFERENCE_MODES

    def _unhandled(self, node: cst.BaseExpression) -> None:
        self.warn(
            node,
            "inference_mode referenced outside a call or decorator: not rewritten",
            "use the no_grad equivalent if this region's code may re-enable grad",
        )

    def _cannot_name(self, node: cst.CSTNode, wanted: str) -> None:
        self.warn(
            node,
            f"inference_mode left as is: no free name for torch.{wanted} here",
            f"replace it with torch.{wanted} by hand",
        )

    def _renamed(self, func: cst.BaseExpression, wanted: str) -> cst.BaseExpression | None:
        """`th.inference_mode` -> `th.<wanted>`; a plain name -> a bound or imported one."""
        if isinstance(func, cst.Attribute):
            return func.with_changes(attr=func.attr.with_changes(value=wanted))
        for module in _GRAD_MODULES:
            exact = self.local_name_for(f"{module}.{wanted}")
            if exact is not None:
                return cst.Name(exact)
        target = f"{_GRAD_MODULES[0]}.{wanted}"
        return imported_reference(self, target) or bound_reference(self, target)

    def _call(self, original: cst.Call, updated: cst.Call, in_context: bool) -> cst.Call:
        mode = find_arg(updated, 0, "mode")
        if any(arg.star for arg in updated.args) or (mode is None and updated.args):
            self.warn(
                original,
                "inference_mode called with unpacked arguments: not rewritten",
                "replace it with no_grad() or enable_grad() by hand",
            )
            return updated
        literal = _literal_bool(mode.value) if mode is not None else True
        if mode is not None and literal is None and not in_context:
            self.warn(
                original,
                "inference_mode(<expression>) outside a with item or decorator: not rewritten",
                "use torch.set_grad_enabled(not <expression>) where the region is entered",
            )
            return updated
        args: list[cst.Arg] = []
        if literal is True:
            wanted = "no_grad"
            message = f"inference_mode() -> no_grad(): {_NO_INFERENCE_TENSORS}"
        elif literal is False:
            wanted = "enable_grad"
            message = "inference_mode(False) -> enable_grad(): leaving inference mode turns grad on"
        else:
            assert mode is not None
            wanted = "set_grad_enabled"
            args = [cst.Arg(value=_negated(mode.value))]
            message = (
                "inference_mode(<mode>) -> set_grad_enabled(not <mode>): the same grad mode, "
                "without inference tensors"
            )
        new_func = self._renamed(updated.func, wanted)
        if new_func is None:
            self._cannot_name(original, wanted)
            return updated
        replacement = updated.with_changes(func=new_func, args=args)
        return self.edit(original, updated, replacement, message)


def _literal_bool(node: cst.BaseExpression) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def _negated(node: cst.BaseExpression) -> cst.BaseExpression:
    """`not <node>`, with parentheses where `not` binds tighter than the expression.

    A double negation stays: `not not flag` is a bool, as set_grad_enabled requires.
    """
    if isinstance(node, _LOW_PRECEDENCE) and not node.lpar:
        node = node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(operator=cst.Not(), expression=node)
