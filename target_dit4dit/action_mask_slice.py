"""`action_mask` not sliced like the action targets in `DiT4DiT.forward`."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.statements import (
    InsertsIntoFunctions,
    array_after,
    assigns_name,
    builds_array,
    code_of,
    is_sliced,
    mentions,
    single_assign,
    walk_statements,
)
from migrator.contract.expected import expected_in_paths, not_found
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Safety
from target_dit4dit import FRAMEWORK

MASK = "action_mask"


def _time_slice(value: cst.BaseExpression) -> list[cst.SubscriptElement] | None:
    """`actions[:, -(w + 1):, :]` -> the elements up to the time slice: `[:, -(w + 1):]`."""
    if not isinstance(value, cst.Subscript) or not isinstance(value.value, cst.Name):
        return None
    elements = list(value.slice)
    for index, element in enumerate(elements):
        if index and isinstance(element.slice, cst.Slice) and element.slice.lower is not None:
            kept = elements[: index + 1]
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return kept
    return None


def _is_target(line: cst.BaseStatement) -> bool:
    """`actions_target = actions[...]`: a name with "target" set from an action tensor."""
    found = single_assign(line)
    if found is None:
        return False
    target, value = found
    return (
        isinstance(target, cst.Name)
        and "target" in target.value
        and isinstance(value, cst.Subscript)
        and isinstance(value.value, cst.Name)
        and "action" in value.value.value
        and MASK not in value.value.value
    )


class ActionMaskSlice(InsertsIntoFunctions, PythonRule):
    """Slice `action_mask` in `DiT4DiT.forward` the way the action targets are sliced.

    What it does: in the `forward` method of DiT4DiT's framework module, the targets keep the
    last steps of the action chunk: `actions_target = actions[:, -(self.future_action_window_size
    +1):, :]`. The mask did not; the rule inserts `action_mask = action_mask[<the same slice>]`
    (the target's own slice expression, up to the time axis) right before the first statement
    that uses the mask after it has become a tensor (upstream: before it is repeated for the
    diffusion steps), so the mask and the targets always cover the same steps.

    Why: the robotwin data carries 16-step action chunks while the shipped configs set
    `future_action_window_size: 7` (8 target steps). The targets are cut to 8 steps, the mask
    stays at 16, and the action head fails on the shape mismatch. The crash is a data/config
    mismatch and happens the same way on every device; it shows up when porting because the
    port is usually tried on that data. When the lengths agree the slice keeps everything.

    Example: after `action_mask = torch.from_numpy(np.stack(action_mask)).to(device)` the rule
    inserts `action_mask = action_mask[:, -(self.future_action_window_size+1):]`.

    Safety: needs review: a no-op when data and config agree, but where the data is longer
    it changes which steps the training loss counts, which is the model's maths, not the
    device port (the report lists it apart).

    Caveats: the rule leaves `forward` alone when the mask is already sliced anywhere in it.
    It warns, instead of editing, when `forward`, the target slice or the mask is missing,
    when the mask is used after the targets only inside nested blocks, or when the mask is
    still a Python list where it is first used (a list cannot take a 2-D slice). A mask
    longer than the targets but not aligned with their last steps is not something it can
    detect.
    """

    code = "DIT003"
    action = "port-code"
    name = "action-mask-slice"
    summary = "Slice action_mask in DiT4DiT.forward like actions_target (the last chunk steps)."
    trigger = Trigger(
        tokens=(MASK,), unit=Unit.MODULE, paths=(FRAMEWORK,), always=expected_in_paths
    )
    # Runs after the rules that keep line counts, so their reports name the file's own lines.
    safety = Safety.REVIEW
    priority = 800
    examples = (
        Example(
            "import torch\n\n\n"
            "class Policy:\n"
            "    def forward(self, actions, action_mask):\n"
            "        actions_target = actions[:, -(self.horizon + 1):, :]\n"
            "        action_mask = torch.as_tensor(action_mask)\n"
            "        return self.head(actions_target, action_mask)\n",
            "import torch\n\n\n"
            "class Policy:\n"
            "    def forward(self, actions, action_mask):\n"
            "        actions_target = actions[:, -(self.horizon + 1):, :]\n"
            "        action_mask = torch.as_tensor(action_mask)\n"
            "        action_mask = action_mask[:, -(self.horizon + 1):]\n"
            "        return self.head(actions_target, action_mask)\n",
            path=FRAMEWORK,
        ),
        Example(
            "import torch\n\n\n"
            "class Policy:\n"
            "    def forward(self, actions, action_mask):\n"
            "        actions_target = actions[:, -(self.horizon + 1):, :]\n"
            "        action_mask = torch.as_tensor(action_mask)[:, -(self.horizon + 1):]\n"
            "        return self.head(actions_target, action_mask)\n",
            None,
            path=FRAMEWORK,
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._owners: list[str] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._owners.append("class")

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        self._owners.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value == "forward" and self._owners[-1:] == ["class"]:
            self.choose(node)
        self._owners.append("def")

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        self._owners.pop()
        return updated_node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self.chosen:
            self.warn(
                original_node,
                not_found("a forward() method", self.ctx.path),
                f"make sure {MASK} is cut to the same steps as the action targets",
            )
        return updated_node

    def plan(self, function: cst.FunctionDef, body: cst.IndentedBlock) -> None:
        where = f"{function.name.value}() of {self.ctx.path}"
        lines = list(walk_statements(body))
        position = next((i for i, (line, _) in enumerate(lines) if _is_target(line)), None)
        if position is None:
            self.warn(
                function,
                not_found(
                    "the action targets' slice `actions_target = actions[:, -n:, ...]`", where
                ),
                f"make sure {MASK} is cut to the same steps as the action targets",
            )
            return
        target_line, block = lines[position]
        found = single_assign(target_line)
        assert found is not None
        elements = _time_slice(found[1])
        if elements is None:
            self.warn(
                target_line,
                f"the action targets are not cut on the time axis ({code_of(found[1])}); "
                f"{MASK} is left as it is",
                f"slice {MASK} the same way as the targets by hand",
            )
            return
        if is_sliced(body, MASK):
            return
        if not mentions(body, MASK):
            self.warn(
                function, not_found(f"`{MASK}`", where), "check how the action loss is masked"
            )
            return
        assert isinstance(block, cst.IndentedBlock)
        siblings = list(block.body)
        start = next(i for i, line in enumerate(siblings) if line is target_line)
        before = [line for line, _ in lines[:position]]
        anchor: cst.BaseStatement | None = None
        converted: list[cst.BaseStatement] = []
        for line in siblings[start + 1 :]:
            if not mentions(line, MASK):
                continue
            value = assigns_name(line, MASK)
            if value is not None and builds_array(value, self.qualname):
                converted.append(line)
                continue
            anchor = line
            break
        if anchor is None:
            self.warn(
                target_line,
                f"{MASK} is not used after the action targets in the same block; it is left "
                "unsliced",
                f"slice {MASK} like the targets where it is used",
            )
            return
        if not array_after([*before, *converted], MASK, self.qualname):
            self.warn(
                anchor,
                f"{MASK} is not seen to become a tensor before this first use after the action "
                "targets (a list cannot take their slice); it is left unsliced",
                f"turn {MASK} into a tensor, then slice it like the targets",
            )
            return
        sliced = cst.Subscript(value=cst.Name(MASK), slice=elements)
        line = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(MASK))], sliced)])
        message = (
            f"{MASK} = {code_of(sliced)} inserted: the mask now covers the same last steps as "
            f"{code_of(found[0])} (data longer than the action chunk, e.g. 16-step robotwin "
            "data with future_action_window_size 7, made the two disagree)"
        )
        if self.record(anchor, message):
            self.inserts[id(anchor)] = [line]
