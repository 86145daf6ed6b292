"""TF32 switches of CUDA matmul and cuDNN convolutions."""

from __future__ import annotations

import libcst as cst

from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import Trigger
from migrator.core.model import Safety

# What the flags default to, so the message can say whether behaviour changes.
_DEFAULTS = {
    "matmul": "HF32 matmul is off by default on the NPU; TF32 matmul is off by default on "
    "CUDA since torch 1.12",
    "conv": "HF32 convolution is on by default on the NPU; cuDNN's TF32 convolution is on by "
    "default on CUDA",
}


def _chain(head: str, parts: list[str]) -> cst.BaseExpression:
    node: cst.BaseExpression = cst.Name(head)
    for part in parts:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


class Tf32Flag(PythonRule):
    """Move the TF32 switches to the NPU's HF32 switches.

    What it does: rewrites every reference, assignment or read, to the flags in the target's
    `tf32_flags` table: `torch.backends.cuda.matmul.allow_tf32` ->
    `torch.npu.matmul.allow_hf32` and `torch.backends.cudnn.allow_tf32` ->
    `torch.npu.conv.allow_hf32`, keeping the assigned value and the file's name for torch
    (`th.backends.cudnn.allow_tf32 = True` -> `th.npu.conv.allow_hf32 = True`). A flag reached
    through an alias (`from torch.backends import cudnn; cudnn.allow_tf32 = True`) is written
    with the file's name for torch; if none is bound the site is reported.

    Why: `transfer_to_npu` does not touch `torch.backends`, and the CUDA flags do nothing on
    an Ascend host, so code that turns TF32 on (for speed) or off (for exact fp32) silently
    loses that choice. The NPU's reduced-precision fp32 format is HF32, switched separately
    for matmul and convolution. Defaults: on CUDA, TF32 matmul is off by default since
    torch 1.12 (`torch.backends.cuda.matmul.allow_tf32 = False`) and cuDNN's TF32
    convolution is on (`torch.backends.cudnn.allow_tf32 = True`); on the NPU HF32 matmul is
    off and HF32 convolution on, the same choice, so code that sets no flag keeps its
    precision. The message says which default applies.

    Example: `torch.backends.cuda.matmul.allow_tf32 = True` ->
    `torch.npu.matmul.allow_hf32 = True`.

    Left alone: other `torch.backends.cuda` and `torch.backends.cudnn` settings (NPU015
    reports the cuDNN ones), and a parameter or local named `torch`.

    Safety: needs review: HF32 and TF32 are not bit-identical formats, so results within
    TF32's tolerance may still differ in the last bits; check the numbers where the flag
    was set for exact fp32 or for speed.
    """

    code = "NPU014"
    action = "port-code"
    safety = Safety.REVIEW
    name = "tf32-flag"
    summary = (
        "TF32 switches (torch.backends.cuda.matmul / cudnn .allow_tf32) to the NPU's HF32 switches."
    )
    trigger = Trigger(tokens=("allow_tf32",), words=True, local=True)
    examples = (
        Example(
            "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
            "torch.backends.cudnn.allow_tf32 = True\n",
            "import torch\ntorch.npu.matmul.allow_hf32 = True\ntorch.npu.conv.allow_hf32 = True\n",
        ),
        Example(
            'import torch\nprint("allow_tf32 is", flag)\ntorch.backends.cudnn.benchmark = True\n',
            None,
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._rewrites: dict[int, tuple[cst.BaseExpression, str]] = {}

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        qualified = self.qualname(node)
        if qualified is None:
            return True
        new = self.target.tf32_flags.get(qualified)
        if new is None:
            return False
        head, *parts = new.split(".")
        torch = self._torch_name(node, head)
        if torch is None:
            self.warn(
                node,
                f"{qualified} is reached through an alias and no name for {head} is bound here",
                f"import {head} and set {new}",
            )
            return False
        default = next((text for key, text in _DEFAULTS.items() if f".{key}." in new), "")
        message = f"{qualified} -> {new}" + (f" ({default})" if default else "")
        self._rewrites[id(node)] = (_chain(torch, parts), message)
        return False

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.BaseExpression
    ) -> cst.BaseExpression:
        found = self._rewrites.pop(id(original_node), None)
        if found is None:
            return updated_node
        replacement, message = found
        return self.edit(original_node, updated_node, replacement, message)

    def _torch_name(self, node: cst.Attribute, module: str) -> str | None:
        """The file's name for `module` (torch): the chain's own head if it is one."""
        head: cst.BaseExpression = node
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name) and self.resolve_name(head.value) == module:
            return head.value
        if self.resolve_name(module) == module:
            return module
        return self.local_name_for(module)
