"""CUDA capability gates: the `torch.cuda` APIs that answer "may this code run here?".

NPU018 (cuda-capability-gate) owns every site of these names; NPU012 (torch-cuda-api),
which moves other `torch.cuda.<api>` to `torch.npu.<api>`, leaves them alone. Claimed in
one place so the two rules cannot both edit a site: `torch.npu.get_device_capability()`
exists but returns None, so the plain rename NPU012 does for other APIs would turn
`get_device_capability() >= (8, 0)` into a `TypeError`, and `torch.cuda.nccl` has no
`torch.npu` counterpart at all. The same holds for `get_device_properties(i).major` /
`.minor` (torch_npu's properties carry no CUDA compute capability), and for a
`torch.cuda.is_available()` `and`-ed with a gate that stays off on the NPU
(`is_available() and get_device_capability() >= (major, minor)`): that probe is CUDA's as a
whole, and moving only its first half changes nothing but the line NPU018 already answers.

`answer` decides a comparison for the NPU as for an Ampere (8.0) GPU, for both rules.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from migrator.analysis.cst_walk import children

# Names directly under `torch.cuda`.
CAPABILITY_APIS = frozenset({"get_device_capability", "nccl"})
PROPERTIES_API = "get_device_properties"
# `get_device_properties(i).major` reads what `get_device_capability(i)[0]` does.
CAPABILITY_FIELDS = {"major": 0, "minor": 1}

# The NPU answers a compute-capability gate as an Ampere GPU would: Atlas A2/A3 run bf16
# and fp16 matmuls (what `>= (8, 0)` gates nearly always guard), and have none of what
# newer thresholds guard (fp8 from (8, 9), Hopper's TMA/wgmma from (9, 0)).
STAND_IN = (8, 0)
_ORDER: dict[type[cst.BaseCompOp], Callable[[Any, Any], bool]] = {
    cst.GreaterThanEqual: operator.ge,
    cst.GreaterThan: operator.gt,
    cst.LessThanEqual: operator.le,
    cst.LessThan: operator.lt,
}
_FLIPPED: dict[type[cst.BaseCompOp], type[cst.BaseCompOp]] = {
    cst.GreaterThanEqual: cst.LessThanEqual,
    cst.GreaterThan: cst.LessThan,
    cst.LessThanEqual: cst.GreaterThanEqual,
    cst.LessThan: cst.GreaterThan,
}

Resolve = Callable[[cst.BaseExpression], str | None]


@dataclass(frozen=True)
class Answer:
    """How a capability comparison answers on the NPU: `passes` as for an 8.0 GPU, or
    False when its threshold is not a literal (`known` False)."""

    call: cst.Call
    passes: bool
    known: bool


def _integer(node: cst.BaseExpression) -> int | None:
    return int(node.value) if isinstance(node, cst.Integer) and node.value.isdigit() else None


def _threshold(node: cst.BaseExpression) -> tuple[int, ...] | int | None:
    """`(8, 0)` -> (8, 0); `8` -> 8; anything that is not literal -> None."""
    if isinstance(node, cst.Tuple):
        parts = [_integer(e.value) for e in node.elements if isinstance(e, cst.Element)]
        if parts and len(parts) == len(node.elements) and all(p is not None for p in parts):
            return tuple(p for p in parts if p is not None)
        return None
    return _integer(node)


def capability_read(
    node: cst.BaseExpression, resolve: Resolve, module: str
) -> tuple[cst.Call, int | None] | None:
    """The capability call `node` is, and which part of it (`[0]`, `.major`) it reads;
    `module` is the source device module (`torch.cuda`)."""
    if isinstance(node, cst.Attribute) and node.attr.value in CAPABILITY_FIELDS:
        call = node.value
        if isinstance(call, cst.Call) and resolve(call.func) == f"{module}.{PROPERTIES_API}":
            return call, CAPABILITY_FIELDS[node.attr.value]
        return None
    index: int | None = None
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        element = node.slice[0].slice
        if not isinstance(element, cst.Index):
            return None
        index = _integer(element.value)
        if index is None:
            return None
        node = node.value
    if isinstance(node, cst.Call) and resolve(node.func) == f"{module}.get_device_capability":
        return node, index
    return None


def answer(node: cst.Comparison, resolve: Resolve, module: str) -> Answer | None:
    """How the capability comparison `node` answers on the NPU, or None if it is none."""
    if len(node.comparisons) != 1:
        return None
    target = node.comparisons[0]
    sides = [(node.left, target.comparator, type(target.operator))]
    flipped = _FLIPPED.get(type(target.operator))
    if flipped is not None:
        sides.append((target.comparator, node.left, flipped))
    for gate, other, op in sides:
        found = capability_read(gate, resolve, module)
        if found is None:
            continue
        call, index = found
        compare = _ORDER.get(op)
        if compare is None:
            return None
        threshold = _threshold(other)
        if threshold is None:
            # `>= (major, minor)`: what the gate guards is not known here, so it stays off
            # on the NPU rather than raising there.
            return Answer(call, False, known=False)
        if isinstance(threshold, tuple) != (index is None) or index not in (None, 0, 1):
            return None
        stand_in: Any = STAND_IN if index is None else STAND_IN[index]
        return Answer(call, compare(stand_in, threshold), known=True)
    return None


def answers_false(node: cst.CSTNode, resolve: Resolve, module: str) -> bool:
    """Whether `node` holds a capability comparison that answers False on the NPU."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Comparison):
            found = answer(current, resolve, module)
            if found is not None and not found.passes:
                return True
        stack.extend(children(current))
    return False
