"""`torch._foreach_*` calls with `alpha=`."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.ast_lines import passes_keyword
from migrator.analysis.cst_helpers import find_arg
from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported

_OPS = ("add", "add_", "sub", "sub_")


class ForeachAlpha(UnsupportedConstruct):
    """Report `torch._foreach_add(_)` / `torch._foreach_sub(_)` calls that pass `alpha=`.

    What it reports: calls such as `torch._foreach_add_(params, grads, alpha=-lr)` (the
    hand-written optimizers and EMA updates that use the private foreach API). A call
    without `alpha=` and the public optimizers' `foreach=True` are left alone.

    Why: in the hand ports this project measures itself against, such calls were
    rewritten for the NPU. Which torch-npu releases register the `alpha=` overloads of the
    foreach kernels has not been checked against the wheels, so the rule reports the call
    for a person to check on the host, with a rewrite that keeps the math.

    Example: `torch._foreach_add_(ema, params, alpha=1 - decay)` is reported;
    `torch._foreach_mul_(ema, decay)` is not.

    Safety: reports only. Suggested rewrite: scale first, then add
    (`scaled = torch._foreach_mul(grads, -lr)` and `torch._foreach_add_(params, scaled)`),
    or a loop of `p.add_(g, alpha=-lr)`; check it on the host's torch-npu release.

    Caveats: the rule cannot tell which torch-npu release the project targets; a release
    whose foreach kernels take `alpha=` makes the warning moot (`--ignore NPU072`).
    """

    code = "NPU072"
    action = "port-code"
    name = "foreach-alpha"
    summary = "Report torch._foreach_add_/sub_(..., alpha=): hand ports rewrote them for the NPU."
    trigger = Trigger(tokens=("_foreach_",), statement_gate=passes_keyword("alpha"), local=True)
    uses = tuple(f"torch._foreach_{op}" for op in _OPS)
    message = "foreach calls with alpha= needed a rewrite in hand ports to the {DEVICE}"
    suggestion = (
        "scale first (torch._foreach_mul(tensors, alpha)), then torch._foreach_add_ without "
        "alpha=, or loop with Tensor.add_(other, alpha=...)"
    )
    examples = (
        reported("import torch\ntorch._foreach_add_(params, grads, alpha=-lr)\n"),
        Example("import torch\ntorch._foreach_mul_(ema, decay)\n"),
    )

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        if call is None or find_arg(call, None, "alpha") is None:
            return None
        return super().describe(name, call)
