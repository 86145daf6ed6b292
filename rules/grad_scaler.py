"""Gradient scalers built for the CUDA device."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import (
    GRAD_SCALER_CALLS,
    add_keyword,
    device_literal,
    find_arg,
)
from migrator.contract.rule import Example, RuleContext
from migrator.contract.string_positions import LiteralMarks


class GradScaler(LiteralMarks):
    """Build gradient scalers for the NPU.

    What it does:

    - `torch.cuda.amp.GradScaler(...)` -> `torch.npu.amp.GradScaler(...)` (calls, references
      and annotations; the file's spelling of torch is kept, the arguments are unchanged);
    - `torch.amp.GradScaler("cuda")` / `torch.amp.GradScaler(device="cuda")` -> the target
      device, in place (also behind `"cuda" if c else "cpu"`);
    - `torch.amp.GradScaler()` without a device argument gets `device="npu"`, because the
      device defaults to "cuda".

    `from torch.cuda.amp import GradScaler` is NPU012's (it moves the whole import).

    Why: `transfer_to_npu` does not rewrite gradient scalers. A scaler built for "cuda" on an
    Ascend host warns that CUDA is not available and disables itself, so fp16 training runs
    without loss scaling and gradients underflow silently.

    Example: `scaler = torch.cuda.amp.GradScaler(enabled=use_fp16)` ->
    `scaler = torch.npu.amp.GradScaler(enabled=use_fp16)`.

    Left alone: a device given as a variable or expression (`torch.amp.GradScaler(device)`),
    scalers already built for the NPU. A call that passes `**kwargs` and no device is
    reported (the device may be among the kwargs).

    Safety: safe.
    """

    code = "NPU013"
    name = "grad-scaler"
    summary = (
        "GradScaler built for CUDA (torch.cuda.amp.GradScaler, torch.amp.GradScaler) to the NPU."
    )
    tokens = ("GradScaler",)
    kind = "scaler device"
    examples = (
        Example(
            "import torch\nscaler = torch.cuda.amp.GradScaler(init_scale=1024)\n",
            "import torch\nscaler = torch.npu.amp.GradScaler(init_scale=1024)\n",
        ),
        Example(
            'from torch.amp import GradScaler\ns = GradScaler("cuda")\nt = GradScaler()\n',
            'from torch.amp import GradScaler\ns = GradScaler("npu")\n'
            't = GradScaler(device="npu")\n',
        ),
        Example("import torch\nscaler = torch.amp.GradScaler(device.type)\n", None),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._cuda_amp: set[int] = set()

    def literal(
        self, node: cst.BaseExpression, *, prefix: bool = False
    ) -> tuple[cst.SimpleString | cst.FormattedString, str] | None:
        return device_literal(node, self.target.source_device_type, self.target.device_type)

    # torch.cuda.amp.GradScaler ------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> bool:
        source = self.target.source_device_type
        if self.qualname(node) != f"torch.{source}.amp.GradScaler":
            return True
        amp = node.value
        if (
            isinstance(amp, cst.Attribute)
            and isinstance(amp.value, cst.Attribute)
            and amp.value.attr.value == source
            and self.qualname(amp.value.value) == "torch"
        ):
            self._cuda_amp.add(id(node))
        return False

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.BaseExpression
    ) -> cst.BaseExpression:
        if id(original_node) not in self._cuda_amp:
            return updated_node
        self._cuda_amp.discard(id(original_node))
        assert isinstance(updated_node, cst.Attribute)
        amp = updated_node.value
        assert isinstance(amp, cst.Attribute) and isinstance(amp.value, cst.Attribute)
        device = self.target.device_type
        cuda = amp.value
        new_cuda = cuda.with_changes(attr=cuda.attr.with_changes(value=device))
        replacement = updated_node.with_changes(value=amp.with_changes(value=new_cuda))
        source = self.target.source_device_type
        message = f"torch.{source}.amp.GradScaler -> torch.{device}.amp.GradScaler"
        return self.edit(original_node, updated_node, replacement, message)

    # torch.amp.GradScaler(device) ----------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self.qualname(node.func) not in GRAD_SCALER_CALLS:
            return
        arg = find_arg(node, 0, "device")
        if arg is not None:
            self.mark(arg.value)
        elif _has_star(node):
            source = self.target.source_device_type
            self.warn(
                node,
                f'GradScaler\'s device defaults to "{source}" and may or may not be passed here',
                f'pass device="{self.target.device_type}"',
            )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if self.qualname(original_node.func) not in GRAD_SCALER_CALLS:
            return updated_node
        if find_arg(original_node, 0, "device") is not None or _has_star(original_node):
            return updated_node
        device = self.target.device_type
        replacement = add_keyword(updated_node, "device", cst.SimpleString(f'"{device}"'))
        source = self.target.source_device_type
        message = f'GradScaler\'s device defaults to "{source}": device="{device}" added'
        return self.edit(original_node, updated_node, replacement, message)


def _has_star(call: cst.Call) -> bool:
    return any(arg.star for arg in call.args)
