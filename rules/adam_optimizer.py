"""Adam and AdamW optimizers built without choosing an implementation."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import add_keyword, find_arg, has_keyword, has_star_kwargs
from migrator.contract.rule import Example, PythonRule
from migrator.core.model import Safety

_ADAMS = frozenset(
    {"torch.optim.Adam", "torch.optim.AdamW", "torch.optim.adam.Adam", "torch.optim.adamw.AdamW"}
)
# Given by the caller: the implementation is chosen already (or cannot be fused).
_CHOSEN = ("foreach", "differentiable")


class AdamOptimizer(PythonRule):
    """Ask `torch.optim.Adam` / `AdamW` for the fused kernel: add `fused=True`.

    What it does: a call of `torch.optim.AdamW(...)` or `torch.optim.Adam(...)` (found by
    qualified name: `import torch.optim as optim`, `from torch.optim import AdamW as AW`)
    that passes neither `fused` nor `foreach` gains `fused=True`, keeping the call's layout
    (a multi-line call stays one argument per line). An explicit `fused=False` is reported,
    not changed (someone chose it); so is a call with `**kwargs`, which may already hold
    `fused` or `foreach` (adding it could raise "got multiple values"). `fused=<expr>` and
    code that decides fusion itself (`fused=use_fused`, with `use_fused` computed from the
    device type) are left to the device-string rules. `differentiable=...` is left alone:
    the fused kernel does not support it.

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
    name = "adam-optimizer"
    summary = "torch.optim.Adam/AdamW without fused/foreach get fused=True (the fused NPU kernel)."
    safety = Safety.REVIEW
    tokens = ("Adam",)
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
    )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        name = self.qualname(original_node.func)
        if name not in _ADAMS:
            return updated_node
        short = name.rsplit(".", 1)[-1]
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
            self.warn(
                original_node,
                f"{short}(**kwargs): not given fused=True (the kwargs may already choose)",
                "pass fused=True (and no foreach) where the kwargs are built",
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
