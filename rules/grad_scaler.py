"""Gradient scalers built for the CUDA device."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import (
    GRAD_SCALER_CALLS,
    device_literal,
    find_arg,
    string_value,
)
from migrator.contract.rule import Example, RuleContext
from migrator.contract.string_positions import LiteralMarks
from migrator.contract.trigger import Trigger


class GradScaler(LiteralMarks):
    """Build gradient scalers for the NPU.

    What it does:

    - `torch.cuda.amp.GradScaler(...)` -> `torch.amp.GradScaler("npu", ...)`: torch's own
      scaler, the current API (`torch.cuda.amp.GradScaler` and torch_npu's
      `torch.npu.amp.GradScaler` are deprecated), with the arguments kept after the device
      (they keep their positions: the device is torch.amp's first parameter). References
      and annotations become `torch.amp.GradScaler` (a reference outside an annotation
      needs review: where it is called, the device goes first); the file's spelling of
      torch is kept;
    - `torch.amp.GradScaler("cuda")` / `torch.amp.GradScaler(device="cuda")` -> the target
      device, in place (also behind `"cuda" if c else "cpu"`);
    - `torch.amp.GradScaler()` without a device argument gets `"npu"` first (its first
      parameter), because the device defaults to "cuda";
    - `torch.GradScaler(...)`, the same class under torch's top-level name, is spelled
      `torch.amp.GradScaler` where the call is edited: `torch.GradScaler()` ->
      `torch.amp.GradScaler("npu")` (a name imported with `from torch import GradScaler`
      keeps its name and gets the device).

    `from torch.cuda.amp import GradScaler` becomes `from torch.amp import GradScaler`
    (NPU012 moves the import) and each call of that name gets the device first, as above:
    `GradScaler(init_scale=1024)` -> `GradScaler("npu", init_scale=1024)`.

    Why: `transfer_to_npu` does not rewrite gradient scalers. A scaler built for "cuda" on an
    Ascend host warns that CUDA is not available and disables itself, so fp16 training runs
    without loss scaling and gradients underflow silently.

    torch's scaler, not torch_npu's: torch_npu's `GradScaler.step` passes `grad_scaler=self`
    to optimizers that declare `_step_supports_amp_scaling`, and torch 2.7.1's fused
    Adam/AdamW/SGD declare it but take no such argument (`TypeError` at the first
    `scaler.step()`, every torch-npu release checked); torch's own scaler follows the
    contract those optimizers implement, so NPU004's `fused=True` stays safe with it.

    Example: `scaler = torch.cuda.amp.GradScaler(enabled=use_fp16)` ->
    `scaler = torch.amp.GradScaler("npu", enabled=use_fp16)`.

    Left alone: a device given as a variable or expression (`torch.amp.GradScaler(device)`),
    scalers already built for the NPU. A call that passes `**kwargs` and no device is
    reported (the device may be among the kwargs).

    Safety: safe. A call of a name imported from `torch.cuda.amp` also asks for
    `from torch.amp import GradScaler` (under the same name), so it stays right where
    NPU012, which moves that import, is not selected.
    """

    code = "NPU013"
    action = "port-code"
    name = "grad-scaler"
    summary = "GradScalers built for CUDA (torch.cuda.amp, torch.amp, torch.GradScaler) to the NPU."
    trigger = Trigger(tokens=("GradScaler",), local=True)
    kind = "scaler device"
    examples = (
        Example(
            "import torch\nscaler = torch.cuda.amp.GradScaler(init_scale=1024)\n",
            'import torch\nscaler = torch.amp.GradScaler("npu", init_scale=1024)\n',
        ),
        Example(
            'from torch.amp import GradScaler\ns = GradScaler("cuda")\nt = GradScaler()\n',
            'from torch.amp import GradScaler\ns = GradScaler("npu")\nt = GradScaler("npu")\n',
        ),
        Example(
            "import torch\nscaler = torch.GradScaler()\n",
            'import torch\nscaler = torch.amp.GradScaler("npu")\n',
        ),
        Example("import torch\nscaler = torch.amp.GradScaler(device.type)\n", None),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._cuda_amp: set[int] = set()
        # `torch.cuda.amp.GradScaler` attributes called directly: the call takes the edit.
        self._called: set[int] = set()
        self._annotations = 0

    def literal(
        self, node: cst.BaseExpression, *, prefix: bool = False
    ) -> tuple[cst.SimpleString | cst.FormattedString, str] | None:
        return device_literal(node, self.target.source_device_type, self.target.device_type)

    def _imported_cuda_scaler(self, node: cst.BaseExpression) -> bool:
        """A name imported from torch.cuda.amp (`GradScaler`, `GS`): NPU012 moves that
        import to torch.amp, so the call takes torch.amp's device argument first."""
        source = self.target.source_device_type
        return (
            isinstance(node, cst.Name) and self.qualname(node) == f"torch.{source}.amp.GradScaler"
        )

    def _names_a_device(self, call: cst.Call) -> bool:
        """The first argument is already a device string (a second run, or by hand)."""
        first = call.args[0] if call.args else None
        if first is None or first.keyword is not None or first.star:
            return False
        value = string_value(first.value)
        devices = (self.target.device_type, self.target.source_device_type)
        return value is not None and value.split(":", 1)[0] in devices

    # torch.cuda.amp.GradScaler ------------------------------------------------------
    def _cuda_amp_chain(self, node: cst.BaseExpression) -> bool:
        """`<torch>.cuda.amp.GradScaler` written out (not a name imported from it)."""
        source = self.target.source_device_type
        if not isinstance(node, cst.Attribute):
            return False
        amp = node.value
        return (
            self.qualname(node) == f"torch.{source}.amp.GradScaler"
            and isinstance(amp, cst.Attribute)
            and isinstance(amp.value, cst.Attribute)
            and amp.value.attr.value == source
            and self.qualname(amp.value.value) == "torch"
        )

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        source = self.target.source_device_type
        if self.qualname(node) != f"torch.{source}.amp.GradScaler":
            return True
        if self._cuda_amp_chain(node):
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
        # `<torch>.cuda.amp.GradScaler` -> `<torch>.amp.GradScaler`
        replacement = updated_node.with_changes(value=amp.with_changes(value=amp.value.value))
        if id(original_node) in self._called:
            return replacement
        source = self.target.source_device_type
        message = f"torch.{source}.amp.GradScaler -> torch.amp.GradScaler"
        if self._annotations:
            return self.edit(original_node, updated_node, replacement, message)
        # The class itself, called elsewhere: torch.amp's first parameter is the device.
        message += f' (called elsewhere: pass "{self.target.device_type}" first)'
        return self.edit(original_node, updated_node, replacement, message, review=True)

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self._annotations += 1

    def leave_Annotation(
        self, original_node: cst.Annotation, updated_node: cst.Annotation
    ) -> cst.Annotation:
        self._annotations -= 1
        return updated_node

    # torch.amp.GradScaler(device) ----------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self._cuda_amp_chain(node.func) or self._imported_cuda_scaler(node.func):
            self._called.add(id(node.func))
            return
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
        if id(original_node.func) in self._called:
            self._called.discard(id(original_node.func))
            if isinstance(original_node.func, cst.Name):
                if self._names_a_device(original_node):
                    return updated_node
                # The name must be torch.amp's scaler: NPU012 moves the import, and this
                # request (merged with that import) keeps the call right without NPU012.
                name = original_node.func.value
                self.add_import("torch.amp", "GradScaler", None if name == "GradScaler" else name)
            return self._device_first(original_node, updated_node)
        if self.qualname(original_node.func) not in GRAD_SCALER_CALLS:
            return updated_node
        if _has_star(original_node):
            return updated_node
        device, source = self.target.device_type, self.target.source_device_type
        arg = find_arg(original_node, 0, "device")
        if arg is None:
            # No device: it defaults to "cuda"; the NPU's goes first, as torch.amp's first
            # parameter (no positional argument is there to move).
            first = cst.Arg(cst.SimpleString(f'"{device}"'), comma=_first_comma(updated_node))
            replacement = updated_node.with_changes(args=[first, *updated_node.args])
            message = f'GradScaler\'s device defaults to "{source}": "{device}" passed first'
        elif self._top_level(original_node.func) and self._retargeted(arg):
            # The literal's own edit says "cuda" -> "npu"; this one the name.
            replacement, message = updated_node, ""
        else:
            return updated_node
        if self._top_level(original_node.func):
            # `torch.GradScaler` is torch.amp's class: spelled as torch.amp's, which every
            # torch-npu release's torch has.
            assert isinstance(updated_node.func, cst.Attribute)
            amp = cst.Attribute(updated_node.func.value, cst.Name("amp"))
            replacement = replacement.with_changes(func=updated_node.func.with_changes(value=amp))
            renamed = "torch.GradScaler -> torch.amp.GradScaler (the same class)"
            message = f"{renamed}; {message}" if message else renamed
        return self.edit(original_node, updated_node, replacement, message)

    def _top_level(self, func: cst.BaseExpression) -> bool:
        """`<torch>.GradScaler` written out (the file's spelling of torch)."""
        return (
            isinstance(func, cst.Attribute)
            and func.attr.value == "GradScaler"
            and self.qualname(func) == "torch.GradScaler"
            and self.qualname(func.value) == "torch"
        )

    def _retargeted(self, arg: cst.Arg) -> bool:
        """The device argument is the source device's literal, which `mark` rewrites."""
        return self.literal(arg.value) is not None

    def _device_first(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        device = self.target.device_type
        first = cst.Arg(value=cst.SimpleString(f'"{device}"'), comma=_first_comma(updated_node))
        replacement = updated_node.with_changes(args=[first, *updated_node.args])
        source = self.target.source_device_type
        if isinstance(original_node.func, cst.Name):
            # A name imported from torch.cuda.amp, whose import NPU012 moves to torch.amp.
            name = original_node.func.value
            message = (
                f'{name}(...) -> {name}("{device}", ...): torch.amp.GradScaler, torch\'s '
                "scaler (safe with fused optimizers)"
            )
        else:
            message = (
                f'torch.{source}.amp.GradScaler(...) -> torch.amp.GradScaler("{device}", ...) '
                "(torch's scaler, safe with fused optimizers)"
            )
        return self.edit(original_node, updated_node, replacement, message)


def _first_comma(call: cst.Call) -> cst.Comma | cst.MaybeSentinel:
    """The separator after the inserted device: the call's own between its first two
    arguments (one per line stays so), else `, `; none for a call without arguments."""
    if not call.args:
        return cst.MaybeSentinel.DEFAULT
    if len(call.args) > 1 and isinstance(call.args[0].comma, cst.Comma):
        return call.args[0].comma
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _has_star(call: cst.Call) -> bool:
    return any(arg.star for arg in call.args)
