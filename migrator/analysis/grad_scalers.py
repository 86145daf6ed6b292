"""Where a module names torch_npu's own GradScaler (read from the stdlib ast).

torch_npu's `GradScaler.step` passes `grad_scaler=self` to optimizers that declare
`_step_supports_amp_scaling`; torch 2.7.1's fused Adam/AdamW/SGD declare it but take no such
argument, so rules that add `fused=True` ask here first (NPU004, NPU023 through the project
view).
"""

from __future__ import annotations

import ast

from migrator.analysis.ast_lines import nodes_of
from migrator.analysis.bindings import dotted_parts, module_bindings

# torch_npu's own GradScaler, whose step() passes grad_scaler=self to a fused optimizer.
NPU_SCALERS = frozenset(
    {
        f"{module}.GradScaler"
        for module in (
            "torch.npu.amp",
            "torch.npu.amp.grad_scaler",
            "torch_npu.npu.amp",
            "torch_npu.npu.amp.grad_scaler",
        )
    }
)


def npu_scaler_line(tree: ast.Module) -> int | None:
    """The first line that names torch_npu's GradScaler through the module's imports (a
    `GradScaler` imported from torch.cuda.amp by name becomes torch's own: NPU012)."""
    bindings = module_bindings(tree)
    lines: list[int] = []
    # The walk other file facts share (`nodes_of`); the first line wins, in any order.
    for node in nodes_of(tree, (ast.Attribute, ast.Name)):
        assert isinstance(node, (ast.Attribute, ast.Name))
        parts = dotted_parts(node)
        if parts is None:
            continue
        head = bindings.resolve(parts[0])
        if head is None:
            continue
        name = ".".join([head, *parts[1:]])
        if name in NPU_SCALERS:
            lines.append(node.lineno)
    return min(lines) if lines else None
