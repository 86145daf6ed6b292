"""Ground-truth actions and mask not aligned with the prediction in `eval_action_model`."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.statements import (
    InsertsIntoFunctions,
    array_after,
    code_of,
    is_sliced,
    walk_statements,
)
from migrator.contract.expected import expected_in_paths, not_found
from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Safety
from target_dit4dit import TRAINER

FUNCTION = "eval_action_model"
_SIMPLE = (cst.Name, cst.Attribute, cst.Subscript, cst.Call)


class _MaskedError(cst.CSTVisitor):
    """Finds `(prediction - truth) * mask` (either operand order of `*`)."""

    def __init__(self) -> None:
        self.found: tuple[cst.BaseExpression, cst.Name, cst.Name] | None = None

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if self.found is not None or not isinstance(node.operator, cst.Multiply):
            return
        for difference, mask in ((node.left, node.right), (node.right, node.left)):
            if (
                isinstance(difference, cst.BinaryOperation)
                and isinstance(difference.operator, cst.Subtract)
                and isinstance(difference.right, cst.Name)
                and isinstance(mask, cst.Name)
            ):
                self.found = (difference.left, difference.right, mask)
                return


def _masked_error(line: cst.BaseStatement) -> tuple[cst.BaseExpression, cst.Name, cst.Name] | None:
    """`(prediction, truth, mask)` of the first masked error on a simple statement line."""
    if not isinstance(line, cst.SimpleStatementLine):
        return None
    visitor = _MaskedError()
    line.visit(visitor)
    return visitor.found


class EvalActionAlignment(InsertsIntoFunctions, PythonRule):
    """Cut ground-truth actions and mask to the predicted length in `eval_action_model`.

    What it does: in DiT4DiT's trainer, `eval_action_model` compares the predicted actions
    with the batch's ground truth through a masked error, `(normalized_actions - actions) *
    action_mask`. Right before that statement the rule inserts

        actions = actions[:, -normalized_actions.shape[1]:]
        action_mask = action_mask[:, -normalized_actions.shape[1]:]

    (with the file's own names), keeping the *last* steps, as `forward` does for its targets
    (see DIT003), so the three arrays have the same length.

    Why: the model predicts `future_action_window_size + 1` steps while the data may carry
    longer chunks (16-step robotwin data, 8 predicted steps with the shipped configs); the
    subtraction then fails to broadcast and training crashes at the first evaluation. This
    is a data/config mismatch, the same on every device. When the lengths agree the slices
    keep everything.

    Safety: needs review: a no-op when the lengths agree, but where the data is longer it
    changes which steps the evaluation error counts, which is the model's maths, not the
    device port (the report lists it apart).

    Caveats: only a masked error whose ground truth and mask are plain names that hold
    arrays (`actions = np.array(actions)`) at that point is edited; a name already sliced
    anywhere in the function is left alone. When `eval_action_model` or the masked error is
    missing, or the ground truth is still a Python list there, the rule warns instead. A
    prediction *longer* than the data cannot be fixed by slicing and still fails.
    """

    code = "DIT004"
    action = "port-code"
    name = "eval-action-alignment"
    summary = (
        "Align ground-truth actions/mask to the predicted length before eval_action_model's MSE."
    )
    trigger = Trigger(
        tokens=(FUNCTION,), unit=Unit.MODULE, paths=(TRAINER,), always=expected_in_paths
    )
    # Runs after the rules that keep line counts, so their reports name the file's own lines.
    safety = Safety.REVIEW
    priority = 800
    examples = (
        Example(
            "import numpy as np\n\n\n"
            "def eval_action_model(pred, actions, action_mask):\n"
            "    actions = np.array(actions)\n"
            "    action_mask = np.array(action_mask)\n"
            "    diff = (pred - actions) * action_mask\n"
            "    return (diff**2).sum() / action_mask.sum()\n",
            "import numpy as np\n\n\n"
            "def eval_action_model(pred, actions, action_mask):\n"
            "    actions = np.array(actions)\n"
            "    action_mask = np.array(action_mask)\n"
            "    actions = actions[:, -pred.shape[1]:]\n"
            "    action_mask = action_mask[:, -pred.shape[1]:]\n"
            "    diff = (pred - actions) * action_mask\n"
            "    return (diff**2).sum() / action_mask.sum()\n",
            path=TRAINER,
        ),
        Example(
            "import numpy as np\n\n\n"
            "def eval_action_model(pred, actions, action_mask):\n"
            "    actions = np.array(actions)[:, -pred.shape[1]:]\n"
            "    action_mask = np.array(action_mask)[:, -pred.shape[1]:]\n"
            "    diff = (pred - actions) * action_mask\n"
            "    return (diff**2).sum() / action_mask.sum()\n",
            None,
            path=TRAINER,
        ),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value == FUNCTION:
            self.choose(node)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self.chosen:
            self.warn(
                original_node,
                not_found(f"{FUNCTION}()", self.ctx.path),
                "make sure evaluation compares predictions with ground truth of the same length",
            )
        return updated_node

    def plan(self, function: cst.FunctionDef, body: cst.IndentedBlock) -> None:
        lines = list(walk_statements(body))
        position = next((i for i, (line, _) in enumerate(lines) if _masked_error(line)), None)
        if position is None:
            self.warn(
                function,
                not_found(
                    "the masked error `(prediction - actions) * action_mask`",
                    f"{FUNCTION}() of {self.ctx.path}",
                ),
                "make sure ground truth and mask are cut to the predicted length",
            )
            return
        line = lines[position][0]
        found = _masked_error(line)
        assert found is not None
        prediction, truth, mask = found
        if truth.value == mask.value:
            return
        before = [earlier for earlier, _ in lines[:position]]
        names = [name.value for name in (truth, mask) if not is_sliced(body, name.value)]
        if not names:
            return
        lists = [name for name in names if not array_after(before, name, self.qualname)]
        if lists:
            self.warn(
                line,
                f"{' and '.join(lists)}: not seen to hold an array where the masked error is "
                "computed (a list cannot be sliced); left unchanged",
                "make it an array first, then keep its last prediction.shape[1] steps",
            )
            return
        shown = code_of(prediction)
        if not isinstance(prediction, _SIMPLE):
            shown = f"({shown})"
        new: list[cst.BaseStatement] = [
            cst.parse_statement(f"{name} = {name}[:, -{shown}.shape[1]:]\n") for name in names
        ]
        message = (
            f"{' and '.join(names)} cut to the last {shown}.shape[1] steps before the masked "
            "error: data chunks longer than the prediction (16-step robotwin data, 8 predicted "
            "steps) no longer break the subtraction"
        )
        if self.record(line, message):
            self.inserts[id(line)] = new
