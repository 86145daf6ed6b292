"""TF32 in its other spellings: `fp32_precision` settings and `set_float32_matmul_precision`."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import FileView, Trigger

# torch's `fp32_precision` settings (torch >= 2.9) -> the NPU's HF32 switch.
_SETTINGS = {
    "torch.backends.cuda.matmul": "matmul",
    "torch.backends.cudnn.conv": "conv",
}
# Settings with no NPU switch of their own: reported.
_UNMATCHED = frozenset({"torch.backends", "torch.backends.cudnn", "torch.backends.cudnn.rnn"})
_VALUES = {"tf32": "True", "ieee": "False"}
# The names it acts on: a setting it moves or reports, and the call it reports.
_ACTS_ON = frozenset(
    {f"{owner}.fp32_precision" for owner in (*_SETTINGS, *_UNMATCHED)}
    | {"torch.set_float32_matmul_precision"}
)


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """Every edit and report is at one of these names (mkldnn's `fp32_precision`, a
    table of torch function names, are not)."""
    return not _ACTS_ON.isdisjoint(names)


class Tf32PrecisionSetting(PythonRule):
    """Move torch's `fp32_precision` settings to the NPU's HF32 switches, and report
    `torch.set_float32_matmul_precision("high")`.

    What it does:

    - `torch.backends.cuda.matmul.fp32_precision = "tf32"` -> `torch.npu.matmul.allow_hf32
      = True` (`"ieee"` -> `False`), and `torch.backends.cudnn.conv.fp32_precision` ->
      `torch.npu.conv.allow_hf32`, keeping the file's name for torch;
    - reports `torch.set_float32_matmul_precision("high")` / `("medium")`, the global
      `torch.backends.fp32_precision` and `torch.backends.cudnn(.rnn).fp32_precision`
      settings, and an `fp32_precision` value that is not a literal.

    Why: these are TF32 switches (torch 2.9 added `fp32_precision` as the newer spelling
    of `allow_tf32`); TF32 is CUDA's, so on an Ascend host they leave matmuls in full
    fp32, silently slower than the CUDA run was. The NPU's reduced-precision fp32 format
    is HF32, switched by `torch.npu.matmul.allow_hf32` (off by default) and
    `torch.npu.conv.allow_hf32` (on by default). `allow_tf32` itself is NPU014's.

    Example: `torch.backends.cuda.matmul.fp32_precision = "tf32"` ->
    `torch.npu.matmul.allow_hf32 = True`.

    Left alone: `set_float32_matmul_precision("highest")` (full fp32, which the NPU does by
    default), mkldnn settings (CPU), a local named `torch`.

    Safety: safe. HF32 and TF32 are not bit-identical formats.
    """

    code = "NPU020"
    action = "port-code"
    name = "tf32-precision-setting"
    summary = (
        "fp32_precision='tf32' settings to HF32 switches; set_float32_matmul_precision('high') "
        "reported."
    )
    trigger = Trigger(
        tokens=("fp32_precision", "set_float32_matmul_precision"), names=_names_gate, local=True
    )
    examples = (
        Example(
            'import torch\ntorch.backends.cuda.matmul.fp32_precision = "tf32"\n',
            "import torch\ntorch.npu.matmul.allow_hf32 = True\n",
        ),
        Example('import torch\ntorch.set_float32_matmul_precision("highest")\n', None),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._rewrites: dict[int, tuple[cst.Assign, str]] = {}

    def _hf32(self, kind: str) -> str:
        return f"torch.{self.target.device_type}.{kind}.allow_hf32"

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        if not isinstance(target, cst.Attribute) or target.attr.value != "fp32_precision":
            return
        owner = self.qualname(target.value)
        if owner is None or (owner not in _SETTINGS and owner not in _UNMATCHED):
            return
        value = string_value(node.value)
        kind = _SETTINGS.get(owner)
        new_value = _VALUES.get(value or "")
        torch = self._torch_name(target)
        if kind is None or new_value is None or torch is None:
            self.warn(
                node,
                f"{owner}.fp32_precision is a TF32 setting, which does nothing on the "
                f"{self.target.device_type.upper()}",
                f"set {self._hf32('matmul')} (and {self._hf32('conv')}) for HF32",
            )
            return
        chain: cst.BaseExpression = cst.Name(torch)
        for part in (self.target.device_type, kind, "allow_hf32"):
            chain = cst.Attribute(value=chain, attr=cst.Name(part))
        replacement = node.with_changes(
            targets=[node.targets[0].with_changes(target=chain)], value=cst.Name(new_value)
        )
        message = f'{owner}.fp32_precision = "{value}" -> {self._hf32(kind)} = {new_value}'
        self._rewrites[id(node)] = (replacement, message)

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        found = self._rewrites.pop(id(original_node), None)
        if found is None:
            return updated_node
        replacement, message = found
        return self.edit(original_node, updated_node, replacement, message)

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualname(node.func) != "torch.set_float32_matmul_precision":
            return
        arg = find_arg(node, 0, "precision")
        value = string_value(arg.value) if arg is not None else None
        if value == "highest":
            return
        self.warn(
            node,
            f"set_float32_matmul_precision({value!r}) allows TF32 on CUDA; on the "
            f"{self.target.device_type.upper()} matmuls stay full fp32",
            f"set {self._hf32('matmul')} = True for the same speed/precision trade (HF32)",
        )

    def _torch_name(self, node: cst.Attribute) -> str | None:
        head: cst.BaseExpression = node
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name) and self.resolve_name(head.value) == "torch":
            return head.value
        if self.resolve_name("torch") == "torch":
            return "torch"
        return self.local_name_for("torch")
