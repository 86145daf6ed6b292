"""`.cuda()` calls on tensors and modules."""

from __future__ import annotations

import libcst as cst

from migrator.contract.rule import Example, PythonRule, RuleContext, TokenPattern
from migrator.contract.trigger import Trigger


class CudaMethod(PythonRule):
    """Turn `tensor.cuda()` and `module.cuda()` into `.npu()`.

    What it does: renames the method of every `x.cuda(...)` call to the target device
    (`x.npu(...)`), keeping the receiver and the arguments: `.cuda(non_blocking=True)`,
    `.cuda(device_id)`, `.cuda(local_rank)`. A device string given as the argument
    (`.cuda("cuda:1")`) is NPU010's. Module attributes such as `torch.cuda` are not calls of
    a `.cuda()` method and are left to NPU012.

    Why: on an Ascend host `.cuda()` raises "Torch not compiled with CUDA enabled"; torch_npu
    adds `Tensor.npu()` and `Module.npu()` with the same arguments. `transfer_to_npu` maps
    `.cuda()` at run time, but the migrated code should say what it does.

    Example: `batch = batch.cuda(non_blocking=True)` -> `batch = batch.npu(non_blocking=True)`.

    Caveat: a class that defines its own `cuda()` method (an override that moves extra
    buffers, or a non-torch object) is reported: after the rename its callers reach `.npu()`,
    which bypasses the override, so give the class a matching `npu()` method.

    Safety: safe.
    """

    code = "NPU011"
    action = "port-code"
    name = "cuda-method"
    summary = "`.cuda()` calls on tensors and modules to `.npu()`."
    # `.cuda(` calls, and `def cuda(` (a class's own override is reported).
    trigger = Trigger(
        patterns=(
            TokenPattern(".cuda", r"\.cuda\s*\("),
            TokenPattern("cuda", r"\bdef\s+cuda\b"),
        ),
        local=True,
        elements=True,
    )
    examples = (
        Example(
            "x = x.cuda(non_blocking=True)\nmodel.cuda(local_rank)\n",
            "x = x.npu(non_blocking=True)\nmodel.npu(local_rank)\n",
        ),
        Example("import torch\ntorch.cuda.synchronize()\nok = x.is_cuda\n", None),
    )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = updated_node.func
        source = self.target.source_device_type
        if not isinstance(func, cst.Attribute) or func.attr.value != source:
            return updated_node
        device = self.target.device_type
        new_func = func.with_changes(attr=func.attr.with_changes(value=device))
        return self.edit(
            original_node,
            updated_node,
            updated_node.with_changes(func=new_func),
            f".{source}() -> .{device}()",
        )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._in_class: list[bool] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._in_class.append(True)

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.ClassDef:
        self._in_class.pop()
        return updated_node

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._in_class.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        method = bool(self._in_class) and self._in_class[-1]
        self._in_class.append(False)
        if method and node.name.value == self.target.source_device_type:
            device = self.target.device_type
            self.warn(
                node,
                f"this class defines its own {node.name.value}(): calls renamed to .{device}() "
                "no longer reach it",
                f"give the class a matching {device}() method",
            )
