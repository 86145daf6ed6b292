"""The "nccl" process-group backend, where the code names or tests it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from migrator.analysis.ast_lines import statement_nodes
from migrator.analysis.cst_helpers import find_arg, is_backend_name, retarget_backend, string_value
from migrator.contract.names import SpeltNames
from migrator.contract.rule import Example, RuleContext
from migrator.contract.string_positions import StringPositionRule
from migrator.contract.trigger import RegionView, TokenPattern, Trigger
from migrator.core.target import Target

_DIST = ("torch.distributed", "torch.distributed.distributed_c10d")
# Callees whose positional argument at this index is a backend.
_BACKEND_ARGUMENT = {
    **{f"{module}.init_process_group": 0 for module in _DIST},
    **{f"{module}.new_group": 2 for module in _DIST},
    **{f"{module}.Backend": 0 for module in _DIST},
}


def _names_backend(statement: ast.stmt, target: Target) -> bool:
    """Whether the statement holds what the rule acts on: a string `retarget_backend`
    changes ("nccl", "cpu:gloo,cuda:nccl"), or the name `NCCL` (`Backend.NCCL`) or
    `is_nccl_available`. Identifiers that only contain the token (`NCCL_TIMEOUT`,
    `self._nccl_comm`) and log text do not."""
    source = target.source_dist_backend
    names = {source.upper(), f"is_{source}_available"}
    for node in statement_nodes(statement):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and retarget_backend(
                node.value, source, target.dist_backend, target.source_device_type,
                target.device_type,
            ) is not None:  # fmt: skip
                return True
        elif isinstance(node, ast.Attribute):
            if node.attr in names:
                return True
        elif isinstance(node, ast.Name) and node.id in names:
            return True
    return False


def _may_act(region: RegionView) -> bool:
    """Whether the region holds what the rule acts on: a statement `_names_backend` admits,
    or a name an import binds to `is_nccl_available` (`from torch.distributed import
    is_nccl_available as nccl_ok`, then `if nccl_ok():`), which the rule resolves and
    reports as it does the name itself. A statement alone cannot tell that: the import
    may be anywhere in the file; the region's qualified names (the engine's, through the
    module's imports and the region's own) resolve it."""
    target = region.target
    if any(_names_backend(statement, target) for statement in region.statements):
        return True
    probe = f"is_{target.source_dist_backend}_available"
    return not region.qualified.isdisjoint(f"{module}.{probe}" for module in _DIST)


class NcclBackend(SpeltNames, StringPositionRule):
    """Use the target's collective backend ("hccl") where the code names "nccl".

    What it does: rewrites the string `"nccl"` (and device:backend lists such as
    `"cpu:gloo,cuda:nccl"` -> `"cpu:gloo,npu:hccl"`) in place where it is a backend:

    - `init_process_group("nccl")`, `new_group(ranks, timeout, "nccl")`, `Backend("nccl")`;
    - keywords of any call whose name holds "backend": `backend=`, `dist_backend=`
      (`deepspeed.init_distributed`), `process_group_backend=`;
    - settings found by name, as NPU010 finds device settings, with names holding "backend":
      `backend = "nccl"`, `self.dist_backend = ...`, `cfg["backend"] = ...`, parameter
      defaults, dict entries, argparse `default=`/`choices=`, `getattr`/`.get` defaults, the
      value of `def get_backend(): return ...` (behind `a if c else b` only the literals);
    - comparisons: `backend == "nccl"`, `dist.get_backend() != "nccl"`, `"nccl" in backend`,
      `backend in ("nccl", "gloo")`.

    `torch.distributed.Backend.NCCL` (a plain string constant equal to "nccl") becomes the
    string `"hccl"`: `Backend.HCCL` exists only once torch_npu has registered its backend,
    which would make the module fail to import without it.

    Why: `transfer_to_npu` rewrites the backend of `init_process_group("nccl")` at run time,
    but not `new_group`, DeepSpeed or Lightning arguments, nor comparisons: on an Ascend host
    `dist.get_backend() == "nccl"` is False and the code takes its non-NCCL path (gloo
    all-reduce on CPU tensors, or an error). `is_nccl_available()` is False there too:
    `dist.is_nccl_available()` becomes `dist.is_backend_available("hccl")` (True once
    torch_npu has registered the backend; torch >= 2.3), and a bare `is_nccl_available`
    imported by name is reported with that check.

    Example: `dist.init_process_group(backend="nccl")` -> `dist.init_process_group(backend="hccl")`.

    Left alone: log text, docstrings, comments and strings in other positions, a backend
    given as a variable, code already using the target backend.

    Safety: safe.
    """

    code = "NPU016"
    action = "port-code"
    name = "nccl-backend"
    summary = (
        'The "nccl" process-group backend (arguments, settings, comparisons) to the target one.'
    )
    trigger = Trigger(
        tokens=("nccl", "NCCL"),
        # A per-device backend string without NCCL: "cpu:gloo,cuda:gloo" (not "cuda:0").
        patterns=(TokenPattern("cuda", r"cuda\s*:\s*[A-Za-z_]"),),
        region=_may_act,
        # Decides from the statement holding the string or name, the function around it
        # (`def get_backend(): return ...`) and name resolution. A backend spelt with an
        # escape (`"nc\x63l"`) holds no token: the fast path leaves it, as it leaves
        # NPU010's `"cu\x64a"` (the full path rewrites both).
        local=True,
    )
    kind = "backend"
    examples = (
        Example(
            'import torch.distributed as dist\ndist.init_process_group("nccl")\n'
            'if dist.get_backend() == "nccl":\n    pass\n',
            'import torch.distributed as dist\ndist.init_process_group("hccl")\n'
            'if dist.get_backend() == "hccl":\n    pass\n',
        ),
        Example(
            'BACKEND = "nccl" if use_gpu else "gloo"\n',
            'BACKEND = "hccl" if use_gpu else "gloo"\n',
        ),
        Example(
            "import torch.distributed as dist\nif dist.is_nccl_available():\n    pass\n",
            'import torch.distributed as dist\nif dist.is_backend_available("hccl"):\n    pass\n',
        ),
        Example('print("nccl backend ready")\nlib = "nccl"\n', None),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._constants: set[int] = set()
        # The attributes of receivers that are no import: their names are not looked up.
        self._attribute_names: set[int] = set()
        # `dist.is_nccl_available` callees of argument-less calls, and those to rewrite.
        self._probes: set[int] = set()
        self._availability_calls: set[int] = set()

    def literal(
        self, node: cst.BaseExpression, *, prefix: bool = False
    ) -> tuple[cst.SimpleString | cst.FormattedString, str] | None:
        value = string_value(node)
        if value is None or not isinstance(node, cst.SimpleString):
            return None
        target = self.target
        new = retarget_backend(
            value,
            target.source_dist_backend,
            target.dist_backend,
            target.source_device_type,
            target.device_type,
        )
        return (node, new) if new is not None else None

    def names_thing(self, name: str) -> bool:
        return is_backend_name(name)

    def is_target_literal(self, node: cst.BaseExpression) -> bool:
        return string_value(node) == self.target.dist_backend

    def call_positions(self, call: cst.Call) -> Iterator[cst.BaseExpression]:
        name = self.qualname(call.func)
        if name in _BACKEND_ARGUMENT:
            arg = find_arg(call, _BACKEND_ARGUMENT[name], None)
            if arg is not None:
                yield arg.value

    # Backend.NCCL and is_nccl_available() ------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Name(self, node: cst.Name) -> None:
        # `f(is_nccl_available=x)`, `def f(is_nccl_available=None)` only spell the name.
        if id(node) not in self._attribute_names and not self.spelt(node):
            self._availability(node, self.qualname(node))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        qualified = self.qualname(node)
        if qualified is None:
            # `self.is_nccl_available` is no import: its name part is not looked up.
            self._attribute_names.add(id(node.attr))
            return True
        source = self.target.source_dist_backend
        if qualified in {f"{module}.Backend.{source.upper()}" for module in _DIST}:
            self._constants.add(id(node))
        self._availability(node, qualified)
        return False

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        if not node.args and isinstance(node.func, cst.Attribute):
            self._probes.add(id(node.func))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node.func) not in self._availability_calls:
            return updated_node
        self._availability_calls.discard(id(original_node.func))
        func = updated_node.func
        assert isinstance(func, cst.Attribute)
        backend = self.target.dist_backend
        replacement = updated_node.with_changes(
            func=func.with_changes(attr=cst.Name("is_backend_available")),
            args=[cst.Arg(cst.SimpleString(f'"{backend}"'))],
        )
        message = (
            f'{self.qualname(original_node.func)}() -> is_backend_available("{backend}") '
            f"(is_{self.target.source_dist_backend}_available() is False on the "
            f"{self.target.name.upper()})"
        )
        return self.edit(original_node, updated_node, replacement, message)

    def _availability(self, node: cst.CSTNode, qualified: str | None) -> None:
        source = self.target.source_dist_backend
        if qualified in {f"{module}.is_{source}_available" for module in _DIST}:
            if id(node) in self._probes:
                self._availability_calls.add(id(node))
                return
            self.warn(
                node,
                f"{qualified}() is False on the {self.target.name.upper()}: code that picks "
                "the backend with it falls back",
                f'test torch.distributed.is_backend_available("{self.target.dist_backend}")',
            )

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.BaseExpression
    ) -> cst.BaseExpression:
        if id(original_node) not in self._constants:
            return updated_node
        self._constants.discard(id(original_node))
        backend = self.target.dist_backend
        replacement = cst.SimpleString(f'"{backend}"')
        message = f'{self.qualname(original_node)} -> "{backend}" (Backend.{backend.upper()} '
        message += f"exists only once {self.target.runtime_module} is imported)"
        return self.edit(original_node, updated_node, replacement, message)
