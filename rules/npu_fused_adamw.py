"""Suggestion: torch_npu's own fused AdamW for releases without the fused kernel."""

from __future__ import annotations

import libcst as cst

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class NpuFusedAdamw(UnsupportedConstruct):
    """Suggest, as a note, `torch_npu.optim.NpuFusedAdamW` where a project builds
    `torch.optim.AdamW` (or `Adam`) and wants a fused optimizer on an older torch-npu.

    What it reports: each `torch.optim.AdamW(...)` / `torch.optim.Adam(...)` call (aliases
    included) that asks for the fused path, `fused=True` (written by the project or by
    NPU004). A call with `fused=False` or `foreach=...`, or without `fused=`, is left alone.

    Why: `fused=True` on the NPU uses the `_fused_adamw_` kernel torch-npu registers; of
    the released wheels checked, 2.6.0 and newer have it for AdamW, and Adam's
    `_fused_adam_` is there from 2.7.1.post11 (on 2.7.1.post2 `Adam(fused=True)` falls back
    to the CPU every step). Where the host's release lacks the kernel, hand ports used
    torch_npu's own `torch_npu.optim.NpuFusedAdamW(params, lr=..., weight_decay=...)` (and
    `NpuFusedAdam`) instead.

    Example: `torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)` gets the note.

    Safety: a suggestion, never an edit (suggestions are NPU090-NPU099; `--ignore NPU09`
    drops them). On torch-npu 2.6.0 and newer keep `fused=True`.

    Caveats: never pair `fused=True` with torch_npu's own GradScaler (`torch.npu.amp`)
    on torch 2.7.1 (its `step(grad_scaler=...)` call fails); use `torch.amp.GradScaler`.
    """

    code = "NPU091"
    action = "suggestion"
    name = "npu-fused-adamw"
    summary = "Suggest torch_npu.optim.NpuFusedAdamW where fused AdamW meets an older torch-npu."
    trigger = Trigger(tokens=("Adam",), local=True, elements=True)
    uses = ("torch.optim.AdamW", "torch.optim.Adam")
    message = (
        "suggestion: fused=True needs the fused kernel in the host's torch-npu (in the wheels "
        "checked: AdamW from 2.6.0, Adam from 2.7.1.post11)"
    )
    suggestion = "keep it on those releases; on older ones use {runtime}.optim.NpuFusedAdamW"
    examples = (
        reported("import torch\nopt = torch.optim.AdamW(params, lr=1e-4, fused=True)\n"),
        Example("import torch\nopt = torch.optim.AdamW(params, lr=1e-4, fused=False)\n"),
    )

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        if call is None or name not in self.uses:
            return None
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "fused":
                value = arg.value
                if isinstance(value, cst.Name) and value.value == "True":
                    return self.message
        return None
