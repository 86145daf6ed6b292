"""`accelerator.get_state_dict(...)` called on rank 0 only."""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from migrator.analysis.statements import (
    binds,
    code_of,
    leading_lines,
    overlaps,
    reads,
    single_assign,
    with_leading,
)
from migrator.contract.expected import expected_in_paths, not_found
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import Trigger, Unit
from target_dit4dit import TRAINER

_MAIN_FLAGS = frozenset({"is_main_process", "is_local_main_process"})
_RANK_VALUES = frozenset({"rank", "local_rank", "global_rank", "process_index"})
_RANK_CALLS = frozenset({"get_rank", "get_local_rank", "get_global_rank"})
_EXITS = (cst.Return, cst.Raise, cst.Continue, cst.Break)
_NOT_MOVABLE = "nested in other statements or inside an expression"


def _last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _is_rank(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Call):
        return not node.args and _last_name(node.func) in _RANK_CALLS
    return _last_name(node) in _RANK_VALUES


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"


def rank_zero(test: cst.BaseExpression) -> bool:
    """`x.is_main_process`, `is_main_process()`, `dist.get_rank() == 0`, `rank == 0`, ..."""
    if isinstance(test, cst.Call) and not test.args:
        return _last_name(test.func) in _MAIN_FLAGS
    if isinstance(test, (cst.Name, cst.Attribute)):
        return _last_name(test) in _MAIN_FLAGS
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if not isinstance(target.operator, cst.Equal):
            return False
        left, right = test.left, target.comparator
        return (_is_zero(right) and _is_rank(left)) or (_is_zero(left) and _is_rank(right))
    return False


def _depends_on_rank(test: cst.BaseExpression) -> bool:
    if rank_zero(test):
        return True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _depends_on_rank(test.expression)
    if isinstance(test, cst.BooleanOperation):
        return _depends_on_rank(test.left) or _depends_on_rank(test.right)
    return False


def _exits_non_main(statement: cst.CSTNode) -> bool:
    """`if not accelerator.is_main_process: return` (or raise/continue/break)."""
    if not isinstance(statement, cst.If) or statement.orelse is not None:
        return False
    test = statement.test
    if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
        return False
    if not rank_zero(test.expression):
        return False
    body = statement.body.body
    last = body[-1] if body else None
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], _EXITS)
    return isinstance(last, _EXITS)


def _gathers(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and _last_name(node.func) == "get_state_dict"


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if _gathers(node):
            self.found.append(node)


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    visitor = _Calls()
    node.visit(visitor)
    return visitor.found


def _receivers(statements: Sequence[cst.CSTNode]) -> set[str]:
    """Objects the statements call methods on (`self.model` for `self.model.eval()`)."""
    found: set[str] = set()

    class _Methods(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Attribute):
                found.update(chain.rsplit(".", 1)[0] for chain in reads(node.func) if "." in chain)

    for statement in statements:
        statement.visit(_Methods())
    return found


class RankZeroStateDict(PythonRule):
    """Gather the model's state dict on every rank; keep saving it on rank 0.

    What it does: in DiT4DiT's trainer, a statement `state_dict = <accelerator>.get_state_dict(...)`
    that sits directly in the body of a rank-0 guard (`if self.accelerator.is_main_process:`,
    `if dist.get_rank() == 0:`, ...) moves to just before the guard. Everything else in the
    guarded block (paths, `torch.save(...)`, metadata, logging) stays as it was and still runs
    on rank 0 only; comments stay where they are. Upstream has this shape in
    `_save_checkpoint` and `_finalize_training`; the rule matches it in any method.

    Why: under DeepSpeed ZeRO-3 every rank holds a shard of the weights, and
    `get_state_dict` gathers them (`_zero3_consolidated_16bit_state_dict`, which DeepSpeed
    says "must be called on all ranks and not just rank 0"). Called on rank 0 only, it waits
    for ranks that never join (they are already in `wait_for_everyone()`), so ZeRO-3
    training hangs at the first checkpoint until the collective times out. Called on every
    rank, rank 0 gets the full state dict (the others None), and the saved `.pt` file
    (format and path) is the same as before, so resuming and deployment
    (`steps_N_pytorch_model.pt`) keep working. DeepSpeed's own `save_checkpoint` would
    change that format.

    Example:

        if self.accelerator.is_main_process:
            path = os.path.join(self.checkpoint_dir, "final")
            state_dict = self.accelerator.get_state_dict(self.model)
            torch.save(state_dict, path + ".pt")

    becomes

        state_dict = self.accelerator.get_state_dict(self.model)
        if self.accelerator.is_main_process:
            path = os.path.join(self.checkpoint_dir, "final")
            torch.save(state_dict, path + ".pt")

    Safety: safe: the saved file is the same. A statement moves only when nothing before it in
    the guard binds, or calls a method on, what the call reads (`self.model = ...`,
    `self.model.eval()`), and nothing there reads the name it assigns.

    Caveats: under ZeRO-2 or without DeepSpeed every rank now copies the weights to host
    memory for a moment (about 2 bytes a parameter each). A guarded `get_state_dict` in any
    other shape (nested deeper, inside an expression such as `torch.save(acc.get_state_dict(m),
    p)`, under a compound test such as `is_main_process and save`, after
    `if not is_main_process: return`, or reading names the guard binds) is reported with a
    warning, not moved. A trainer without any `get_state_dict` call is reported too.
    """

    code = "DIT002"
    action = "port-code"
    name = "rank-zero-state-dict"
    summary = (
        "accelerator.get_state_dict() under a rank-0 guard: call it on every rank (ZeRO-3 hang)."
    )
    trigger = Trigger(
        tokens=("get_state_dict",), unit=Unit.MODULE, paths=(TRAINER,), always=expected_in_paths
    )
    # Moves lines without changing their count; runs before the rules that insert lines.
    priority = 700
    examples = (
        Example(
            "def save(accelerator, model):\n"
            "    if accelerator.is_main_process:\n"
            "        state_dict = accelerator.get_state_dict(model)\n"
            '        torch.save(state_dict, "model.pt")\n',
            "def save(accelerator, model):\n"
            "    state_dict = accelerator.get_state_dict(model)\n"
            "    if accelerator.is_main_process:\n"
            '        torch.save(state_dict, "model.pt")\n',
            path=TRAINER,
        ),
        Example(
            "def save(accelerator, model):\n"
            "    state_dict = accelerator.get_state_dict(model)\n"
            "    if accelerator.is_main_process:\n"
            '        torch.save(state_dict, "model.pt")\n',
            None,
            path=TRAINER,
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._calls = 0
        self._rank_tests: list[cst.If] = []
        self._guarded: dict[int, cst.Call] = {}
        self._reasons: dict[int, str] = {}
        self._moved: set[int] = set()

    # Where each call sits --------------------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        self._rank_tests.append(node)

    def leave_If(
        self, original_node: cst.If, updated_node: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        self._rank_tests.pop()
        return updated_node

    def visit_Call(self, node: cst.Call) -> None:
        if not _gathers(node):
            return
        self._calls += 1
        guards = [guard for guard in self._rank_tests if _depends_on_rank(guard.test)]
        if not guards:
            return
        self._guarded[id(node)] = node
        if not rank_zero(guards[-1].test):
            self._reasons[id(node)] = f"under `if {code_of(guards[-1].test)}:`"

    # Moving the calls -------------------------------------------------------------------
    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.BaseSuite:
        body = self._block(original_node.body, updated_node.body)
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._block(original_node.body, updated_node.body)
        if body is not None:
            updated_node = updated_node.with_changes(body=body)
        for key, call in self._guarded.items():
            if key in self._moved:
                continue
            reason = self._reasons.get(key, _NOT_MOVABLE)
            self.warn(
                call,
                f"{code_of(call)} runs on rank 0 only ({reason}); under ZeRO-3 it is a "
                "collective and rank 0 waits forever for the other ranks",
                "call it on every rank before the rank-0 guard and keep only the saving "
                "under the guard",
            )
        if not self._calls:
            self.warn(
                original_node,
                not_found("accelerator.get_state_dict(...) (checkpoint saving)", self.ctx.path),
                "under ZeRO-3 the weights must be gathered on every rank before rank 0 saves",
            )
        return updated_node

    def _block(
        self, original: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]
    ) -> list[cst.BaseStatement] | None:
        if len(original) != len(updated):
            return None
        new: list[cst.BaseStatement] = []
        changed = False
        exited = False
        for before, after in zip(original, updated, strict=True):
            if exited:
                for call in _calls_in(before):
                    self._guarded[id(call)] = call
                    self._reasons[id(call)] = "after a return for the other ranks"
            if _exits_non_main(before):
                exited = True
            if isinstance(before, cst.If) and isinstance(after, cst.If) and rank_zero(before.test):
                moved = self._guard(before, after)
                if moved is not None:
                    new.extend(moved)
                    changed = True
                    continue
            new.append(after)
        return new if changed else None

    def _guard(self, original: cst.If, updated: cst.If) -> list[cst.BaseStatement] | None:
        """The statements that replace the guard (moved lines, then the guard), or None."""
        if not isinstance(original.body, cst.IndentedBlock) or not isinstance(
            updated.body, cst.IndentedBlock
        ):
            return None
        inside = list(original.body.body)
        kept = list(updated.body.body)
        if len(inside) != len(kept):
            return None
        moving = [
            index
            for index, before in enumerate(inside)
            if self._movable(before, inside[:index], original)
        ]
        if not moving:
            return None
        moved = [kept[index] for index in moving]
        rest = [after for index, after in enumerate(kept) if index not in moving]
        if not rest and updated.orelse is None and not updated.body.footer:
            # Nothing else was guarded: the guard goes, its comments stay above the line.
            moved[0] = with_leading(moved[0], [*updated.leading_lines, *leading_lines(moved[0])])
            return moved
        # A moved line's comments stay in the guard, above the line that followed it.
        body: list[cst.BaseStatement] = []
        carried: list[cst.EmptyLine] = []
        for index, after in enumerate(kept):
            if index in moving:
                carried.extend(leading_lines(after))
                continue
            if carried:
                after = with_leading(after, [*carried, *leading_lines(after)])
                carried = []
            body.append(after)
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        block = updated.body.with_changes(body=body, footer=[*carried, *updated.body.footer])
        moved = [with_leading(line, ()) for line in moved]
        moved[0] = with_leading(moved[0], updated.leading_lines)
        return [*moved, updated.with_changes(body=block, leading_lines=[])]

    def _movable(
        self, statement: cst.BaseStatement, earlier: Sequence[cst.BaseStatement], guard: cst.If
    ) -> bool:
        """Whether `name = <acc>.get_state_dict(...)` may move (and the move was recorded)."""
        found = single_assign(statement)
        if found is None or not _gathers(found[1]):
            return False
        target, call = found
        assert isinstance(call, cst.Call)
        key = id(call)
        used = reads(call)
        bound = binds(earlier)
        if overlaps(bound, used):
            names = ", ".join(sorted(chain for chain in bound if overlaps([chain], used)))
            self._reasons[key] = f"it reads {names}, bound earlier inside the guard"
            return False
        called = _receivers(earlier)
        if overlaps(called, used):
            names = ", ".join(sorted(chain for chain in called if overlaps([chain], used)))
            self._reasons[key] = f"the guard calls methods of {names} before it"
            return False
        read_before: set[str] = set()
        for line in earlier:
            read_before |= reads(line)
        if overlaps(reads(target), read_before):
            self._reasons[key] = f"the guard reads {code_of(target)} before it is assigned"
            return False
        return self._record(statement, call, guard)

    def _record(self, statement: cst.BaseStatement, call: cst.Call, guard: cst.If) -> bool:
        """Report the move; False when a `# migrate: ignore` comment forbids it."""
        message = (
            f"{code_of(call)} moved before `if {code_of(guard.test)}:`: under ZeRO-3 it "
            "gathers the sharded weights, a collective every rank must join (rank 0 alone "
            "hangs); saving stays on rank 0"
        )
        if not self.record(statement, message):
            return False
        self._moved.add(id(call))
        return True
