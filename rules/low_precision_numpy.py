"""`.cpu().numpy()` on tensors that can be bfloat16."""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable, Iterable, Sequence

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.cst_helpers import dotted_name, find_arg
from migrator.contract.rule import Example, PythonRule, RuleContext, TokenPattern
from migrator.contract.trigger import Trigger

_AUTOCASTS = ("torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast")
_DEVICE_AUTOCAST = "torch.{device}.amp.autocast"
_BF16 = frozenset({"torch.bfloat16"})
_LOW_DTYPES = frozenset({"torch.bfloat16", "torch.float16", "torch.half"})
# Methods that give a tensor of a fixed dtype numpy can hold (`.half()`: numpy has float16).
_FIXED_DTYPE_METHODS = frozenset(
    {"float", "double", "half", "int", "long", "short", "char", "byte", "bool", "cfloat"}
)
_BF16_METHODS = frozenset({"bfloat16"})
_DTYPE_CONVERSIONS = frozenset({"to", "type"})
# Methods whose result is not a float tensor (indices, Python values, numpy arrays).
_NON_FLOAT_RESULTS = frozenset(
    {"argmax", "argmin", "argsort", "nonzero", "item", "tolist", "size", "dim", "numel",
     "numpy", "isnan", "isinf", "isfinite", "eq", "ne", "lt", "le", "gt", "ge", "all", "any",
     "argwhere", "bucketize", "searchsorted", "multinomial", "count_nonzero", "isin",
     "logical_and", "logical_or", "logical_not", "logical_xor", "isclose", "equal",
     # token ids (`model.generate(...)`)
     "generate"}
)  # fmt: skip
# torch functions that create integer or bool tensors (unless given a dtype).
_INTEGER_FACTORIES = frozenset(
    {"torch.randint", "torch.randint_like", "torch.randperm", "torch.bernoulli_"}
)
# (values, indices) pairs: `x.topk(k)[1]`, `torch.sort(x).indices`, `v, i = x.max(dim=1)`.
_VALUE_INDEX_PAIRS = frozenset(
    {"topk", "sort", "max", "min", "kthvalue", "mode", "median", "cummax", "cummin"}
)
# Of those, the ones that are a pair only when given a dim.
_REDUCTIONS = frozenset({"max", "min", "median"})
# Attributes that are not tensors (or not the tensor's values).
_NON_TENSOR_ATTRIBUTES = frozenset(
    {"device", "shape", "ndim", "dtype", "is_cuda", "requires_grad", "layout", "names",
     # integer results: `.topk(k).indices`, `generate(...).sequences`
     "indices", "sequences"}
)  # fmt: skip
# Methods a `.numpy()` chain may run through between its root and `.numpy()`.
_CHAIN_METHODS = frozenset(
    {"detach", "cpu", "to", "type", "clone", "contiguous", "squeeze", "unsqueeze", "view",
     "reshape", "permute", "transpose", "flatten", "requires_grad_", "float", "double", "half",
     "int", "long", "short", "char", "byte", "bool", "bfloat16", "cfloat"}
)  # fmt: skip
_MOVES = frozenset({"detach", "cpu"})
# Words that show a method computes in low precision (read from the stdlib ast).
_LOW_PRECISION_WORDS = frozenset({"autocast", "bfloat16", "float16", "half"})

# Class name -> names of its methods that use low precision (autocast, bf16/fp16 dtypes).
LowMethods = dict[str, frozenset[str]]


def _mentions_low_precision_ast(node: ast.AST) -> bool:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Attribute) and inner.attr in _LOW_PRECISION_WORDS:
            return True
        if isinstance(inner, ast.Name) and inner.id in _LOW_PRECISION_WORDS:
            return True
    return False


def low_precision_methods(tree: ast.Module, text: str) -> LowMethods:
    """For each class of the file, the methods whose own code uses low precision."""
    found: LowMethods = {}
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.ClassDef):
            methods = frozenset(
                item.name
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                and _mentions_low_precision_ast(item)
            )
            if methods:
                found[node.name] = found.get(node.name, frozenset()) | methods
            pending.extend(node.body)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.If, ast.Try)):
            pending.extend(getattr(node, "body", []))
    return found


class Taint(enum.Enum):
    """What the analysis knows of a value: it can be bf16, it cannot, or nothing."""

    LOW = "low"
    CLEAN = "clean"


Known = Taint | None
State = dict[str, Taint]


class Verdict(enum.IntEnum):
    NONE = 0
    WARN = 1
    EDIT = 2


def _join(values: Iterable[Known]) -> Known:
    seen = list(values)
    if any(value is Taint.LOW for value in seen):
        return Taint.LOW
    if seen and all(value is Taint.CLEAN for value in seen):
        return Taint.CLEAN
    return None


def _merge(first: State, second: State) -> State:
    merged: State = {}
    for name in first.keys() | second.keys():
        value = _join([first.get(name), second.get(name)])
        if value is not None:
            merged[name] = value
    return merged


def _method(call: cst.Call) -> str | None:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


def numpy_chain(site: cst.Call) -> tuple[list[cst.Call], cst.BaseExpression] | None:
    """For `root.m1().m2().numpy()`: the calls below `.numpy()`, outermost first, and root.

    Only methods that keep the values (moves, views, dtype casts) belong to the chain;
    anything else (`self.head(x)`) is part of the root.
    """
    if not isinstance(site.func, cst.Attribute) or site.func.attr.value != "numpy":
        return None
    calls: list[cst.Call] = []
    receiver = site.func.value
    while isinstance(receiver, cst.Call) and _method(receiver) in _CHAIN_METHODS:
        calls.append(receiver)
        assert isinstance(receiver.func, cst.Attribute)
        receiver = receiver.func.value
    return calls, receiver


class _Flow:
    """Intra-function data flow: which names can hold bf16 at each `.numpy()` site.

    Statements are walked in order; branches are analysed separately and merged (a name
    is bf16-capable if it is on any path, known clean only if clean on every path); loop
    bodies twice, so values carried around the loop are seen.
    """

    def __init__(
        self,
        qualname: Callable[[cst.BaseExpression], str | None],
        device: str,
        low_methods: frozenset[str] = frozenset(),
    ):
        self.qualname = qualname
        # Methods of the enclosing class that compute in low precision.
        self.low_methods = low_methods
        self.autocasts = frozenset((*_AUTOCASTS, _DEVICE_AUTOCAST.format(device=device)))
        self.verdicts: dict[int, Verdict] = {}
        self.uses_low_precision = False

    # Entry -----------------------------------------------------------------------
    def run(self, unit: cst.BaseStatement) -> dict[int, Verdict]:
        """Verdicts for the `.numpy()` sites of a function, or of a top-level statement."""
        region = False
        parts: list[cst.CSTNode] = [unit]
        statements: Sequence[cst.BaseStatement] = [unit]
        if isinstance(unit, (cst.FunctionDef, cst.ClassDef)):
            # The unit's own body: nested functions and classes are units of their own.
            parts = [*unit.decorators, unit.body]
            statements = _statements(unit.body)
        if isinstance(unit, cst.FunctionDef):
            region = any(self._autocast_enabled(d.decorator) for d in unit.decorators)
        self.uses_low_precision = any(self._mentions_low_precision(part) for part in parts)
        self._block(statements, {}, region)
        return self.verdicts

    def _mentions_low_precision(self, unit: cst.CSTNode) -> bool:
        finder = _Finder(
            lambda node: (
                (
                    isinstance(node, cst.Call)
                    and (
                        self._autocast(node) is not None
                        or _method(node) in (_BF16_METHODS | {"half"})
                    )
                )
                or (
                    isinstance(node, (cst.Attribute, cst.Name))
                    and self.qualname(node) in _LOW_DTYPES
                )
            )
        )
        cst_walk.visit(unit, finder)
        return finder.found

    # Statements ------------------------------------------------------------------
    def _block(self, statements: Sequence[cst.BaseStatement], state: State, region: bool) -> State:
        for statement in statements:
            state = self._statement(statement, state, region)
        return state

    def _statement(self, node: cst.BaseStatement, state: State, region: bool) -> State:
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                state = self._small(small, state, region)
            return state
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return {k: v for k, v in state.items() if k != node.name.value}
        if isinstance(node, cst.If):
            self._scan(node.test, state, region)
            then = self._block(_statements(node.body), dict(state), region)
            other = (
                self._statement(node.orelse, dict(state), region)
                if isinstance(node.orelse, cst.If)
                else self._block(_statements(node.orelse.body), dict(state), region)
                if node.orelse is not None
                else state
            )
            return _merge(then, other)
        if isinstance(node, (cst.For, cst.While)):
            return self._loop(node, state, region)
        if isinstance(node, cst.With):
            inner = region
            for item in node.items:
                self._scan(item.item, state, region)
                enabled = self._autocast_enabled(item.item)
                if enabled is not None:
                    inner = enabled
                if item.asname is not None:
                    state = self._bind(item.asname.name, None, state)
            return self._block(_statements(node.body), state, inner)
        if isinstance(node, cst.Try):
            after_body = self._block(_statements(node.body), dict(state), region)
            entry = _merge(state, after_body)
            ends = [
                self._block(_statements(handler.body), dict(entry), region)
                for handler in node.handlers
            ]
            if node.orelse is not None:
                after_body = self._block(_statements(node.orelse.body), after_body, region)
            merged = after_body
            for end in ends:
                merged = _merge(merged, end)
            if node.finalbody is not None:
                merged = self._block(_statements(node.finalbody.body), merged, region)
            return merged
        # Anything else (match, async forms): scan its expressions, keep what is known.
        self._scan(node, state, region)
        return state

    def _loop(self, node: cst.For | cst.While, state: State, region: bool) -> State:
        if isinstance(node, cst.For):
            self._scan(node.iter, state, region)
        else:
            self._scan(node.test, state, region)
        current = state
        for _ in range(2):
            entry = current
            if isinstance(node, cst.For):
                entry = self._bind(node.target, self._taint(node.iter, current, region), entry)
            current = _merge(current, self._block(_statements(node.body), dict(entry), region))
        if node.orelse is not None:
            current = self._block(_statements(node.orelse.body), current, region)
        return current

    def _small(self, node: cst.BaseSmallStatement, state: State, region: bool) -> State:
        self._scan(node, state, region)
        if isinstance(node, cst.Assign):
            value = self._taint(node.value, state, region)
            for target in node.targets:
                if self._pair(node.value) and isinstance(target.target, (cst.Tuple, cst.List)):
                    # `values, indices = x.topk(k)`: the second is never a float.
                    elements = target.target.elements
                    if len(elements) == 2:
                        state = self._bind(elements[0].value, value, state)
                        state = self._bind(elements[1].value, Taint.CLEAN, state)
                        continue
                state = self._bind(target.target, value, state)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            state = self._bind(node.target, self._taint(node.value, state, region), state)
        elif isinstance(node, cst.AugAssign):
            value = _join([self._taint(node.target, state, region),
                           self._taint(node.value, state, region)])  # fmt: skip
            state = self._bind(node.target, Taint.LOW if value is Taint.LOW else None, state)
        return state

    def _bind(self, target: cst.BaseExpression, value: Known, state: State) -> State:
        state = dict(state)
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                state = self._bind(element.value, value, state)
            return state
        if isinstance(target, cst.StarredElement):
            return self._bind(target.value, value, state)
        name = dotted_name(target)
        if name is None:
            return state
        for key in [key for key in state if key == name or key.startswith(name + ".")]:
            del state[key]
        if value is not None:
            state[name] = value
        return state

    # Expressions -----------------------------------------------------------------
    def _taint(self, node: cst.BaseExpression, state: State, region: bool) -> Known:
        """Whether an expression's value can be bf16 (LOW), cannot (CLEAN), or unknown."""
        if isinstance(node, (cst.BaseNumber, cst.BaseString, cst.Comparison)):
            return Taint.CLEAN
        if isinstance(node, cst.UnaryOperation):
            if isinstance(node.operator, cst.Not):
                return Taint.CLEAN
            return self._taint(node.expression, state, region)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return Taint.CLEAN
            return state.get(node.value)
        if isinstance(node, cst.Attribute):
            name = dotted_name(node)
            if name is not None and name in state:
                return state[name]
            if node.attr.value in _NON_TENSOR_ATTRIBUTES:
                return Taint.CLEAN
            return Taint.LOW if self._taint(node.value, state, region) is Taint.LOW else None
        if isinstance(node, cst.Subscript):
            if self._pair(node.value) and _literal_index(node) == 1:
                return Taint.CLEAN
            return Taint.LOW if self._taint(node.value, state, region) is Taint.LOW else None
        if isinstance(node, (cst.BooleanOperation, cst.IfExp)):
            parts = (
                [node.left, node.right]
                if isinstance(node, cst.BooleanOperation)
                else [node.body, node.orelse]
            )
            return _join(self._taint(part, state, region) for part in parts)
        if isinstance(node, (cst.Tuple, cst.List)):
            values = [self._taint(element.value, state, region) for element in node.elements]
            return Taint.LOW if Taint.LOW in values else None
        if isinstance(node, cst.BinaryOperation):
            if region and isinstance(node.operator, cst.MatrixMultiply):
                return Taint.LOW
            value = _join([self._taint(node.left, state, region),
                           self._taint(node.right, state, region)])  # fmt: skip
            return Taint.LOW if value is Taint.LOW else value
        if isinstance(node, cst.Call):
            return self._call_taint(node, state, region)
        if isinstance(node, cst.Await):
            return self._taint(node.expression, state, region)
        return None

    def _call_taint(self, node: cst.Call, state: State, region: bool) -> Known:
        method = _method(node)
        if method in _FIXED_DTYPE_METHODS or method in _NON_FLOAT_RESULTS:
            return Taint.CLEAN
        if method in _BF16_METHODS:
            return Taint.LOW
        dtype = self._dtype_argument(node, method)
        if dtype is not None:
            return self._dtype_taint(dtype, state)
        name = self.qualname(node.func)
        if name is not None and (name.startswith("numpy.") or name == "torch.from_numpy"):
            return Taint.CLEAN
        if name in _INTEGER_FACTORIES or (
            name is not None
            and name.startswith("torch.")
            and name.rsplit(".", 1)[-1] in _NON_FLOAT_RESULTS
        ):
            return Taint.CLEAN
        if name == "torch.where":
            # One argument gives indices; three give the promoted type of the two values
            # (no autocast op: a region does not lower it).
            if len(node.args) == 1:
                return Taint.CLEAN
            if len(node.args) == 3:
                return _join(self._taint(arg.value, state, False) for arg in node.args[1:])
        if region or self._calls_low_method(node):
            return Taint.LOW
        inputs = [arg.value for arg in node.args]
        if isinstance(node.func, cst.Attribute):
            # A method of a value known not to be bf16 (an fp32 tensor, a numpy array)
            # gives no bf16 either: type promotion keeps fp32 over bf16 arguments.
            if self._taint(node.func.value, state, region) is Taint.CLEAN:
                return Taint.CLEAN
            inputs.append(node.func.value)
        if any(self._taint(value, state, region) is Taint.LOW for value in inputs):
            return Taint.LOW
        return None

    def _pair(self, node: cst.BaseExpression) -> bool:
        """A call returning (values, indices)."""
        if not isinstance(node, cst.Call):
            return False
        method = _method(node)
        if method not in _VALUE_INDEX_PAIRS:
            return False
        if method not in _REDUCTIONS:
            return True
        # `x.max()` is one value and `torch.max(a, b)` elementwise; with a dim, a pair.
        if find_arg(node, None, "dim") is not None:
            return True
        dim_at = 1 if self.qualname(node.func) in {f"torch.{m}" for m in _REDUCTIONS} else 0
        dim = find_arg(node, dim_at, None)
        return dim is not None and isinstance(dim.value, (cst.Integer, cst.UnaryOperation))

    def _calls_low_method(self, node: cst.Call) -> bool:
        """`self(...)` or `self.m(...)` where the class's `forward`/`m` uses low precision."""
        func = node.func
        if isinstance(func, cst.Name) and func.value == "self":
            return "forward" in self.low_methods or "__call__" in self.low_methods
        return (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and func.attr.value in self.low_methods
        )

    def _dtype_argument(self, node: cst.Call, method: str | None) -> cst.BaseExpression | None:
        """The dtype a call converts to or creates with, if it names one."""
        keyword = find_arg(node, None, "dtype")
        if keyword is not None:
            return keyword.value
        if method in _DTYPE_CONVERSIONS:
            for arg in node.args:
                if arg.keyword is None and not arg.star and self._is_dtype(arg.value):
                    return arg.value
        return None

    def _is_dtype(self, node: cst.BaseExpression) -> bool:
        name = self.qualname(node)
        if name is not None and name.startswith("torch.") and name.count(".") == 1:
            return name.rsplit(".", 1)[1] in _TORCH_DTYPES
        return isinstance(node, cst.Attribute) and node.attr.value == "dtype"

    def _dtype_taint(self, node: cst.BaseExpression, state: State) -> Known:
        name = self.qualname(node)
        if name in _BF16:
            return Taint.LOW
        if name is not None and self._is_dtype(node):
            return Taint.CLEAN
        if isinstance(node, cst.Attribute) and node.attr.value == "dtype":
            # `x.dtype`: the dtype of x, so as bf16-capable as x is.
            source = self._taint(node.value, state, False)
            return Taint.LOW if source is Taint.LOW else None
        return None

    # Autocast --------------------------------------------------------------------
    def _autocast(self, node: cst.BaseExpression) -> cst.Call | None:
        if isinstance(node, cst.Call) and self.qualname(node.func) in self.autocasts:
            return node
        return None

    def _autocast_enabled(self, node: cst.BaseExpression) -> bool | None:
        """True/False for an autocast call (False only for a literal `enabled=False`)."""
        call = self._autocast(node)
        if call is None:
            return None
        enabled = find_arg(call, None, "enabled")
        return not (
            enabled is not None
            and isinstance(enabled.value, cst.Name)
            and enabled.value.value == "False"
        )

    # Sites -----------------------------------------------------------------------
    def _scan(self, node: cst.CSTNode, state: State, region: bool) -> None:
        finder = _Finder(lambda found: isinstance(found, cst.Call), collect=True)
        cst_walk.visit(node, finder)
        for call in finder.nodes:
            assert isinstance(call, cst.Call)
            verdict = self._verdict(call, state, region)
            if verdict > self.verdicts.get(id(call), Verdict.NONE):
                self.verdicts[id(call)] = verdict

    def _verdict(self, site: cst.Call, state: State, region: bool) -> Verdict:
        chain = numpy_chain(site)
        if chain is None:
            return Verdict.NONE
        calls, root = chain
        if not calls or _method(calls[0]) not in _MOVES:
            return Verdict.NONE
        if any(self._fixes_dtype(call) for call in calls):
            return Verdict.NONE
        taint = self._taint(root, state, region)
        if taint is Taint.LOW:
            return Verdict.EDIT
        if taint is None and self.uses_low_precision:
            return Verdict.WARN
        return Verdict.NONE

    def _fixes_dtype(self, call: cst.Call) -> bool:
        method = _method(call)
        if method in _FIXED_DTYPE_METHODS or method in _BF16_METHODS:
            return True
        if method == "type" and call.args:
            return True
        return method == "to" and self._dtype_argument(call, method) is not None


_TORCH_DTYPES = frozenset(
    {"float32", "float", "float64", "double", "float16", "half", "bfloat16", "uint8", "int8",
     "int16", "short", "int32", "int", "int64", "long", "bool", "complex64", "complex128",
     "cfloat", "cdouble"}
)  # fmt: skip


class _Finder(cst.CSTVisitor):
    """Nodes matching a predicate, without entering nested functions or classes."""

    def __init__(self, predicate: Callable[[cst.CSTNode], bool], collect: bool = False) -> None:
        self.predicate = predicate
        self.collect = collect
        self.found = False
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.nodes and not self.collect:
            return False
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return False
        if self.predicate(node):
            self.found = True
            self.nodes.append(node)
        # Compound statements are walked by _Flow itself; only their headers are scanned.
        return not isinstance(node, cst.BaseSuite) or not self.collect


def _literal_index(node: cst.Subscript) -> int | None:
    if len(node.slice) != 1:
        return None
    index = node.slice[0].slice
    if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
        return int(index.value.value)
    return None


def _statements(body: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if isinstance(body, cst.IndentedBlock):
        return body.body
    assert isinstance(body, cst.SimpleStatementSuite)
    return [cst.SimpleStatementLine(body=body.body)]


class LowPrecisionNumpy(PythonRule):
    """Cast to float before `.cpu().numpy()` where the tensor can be bfloat16.

    What it does: inserts `.float()` before `.cpu()` in `.cpu().numpy()` and
    `.detach().cpu().numpy()` chains (before `.numpy()` when the chain only detaches:
    `x.detach().numpy()` -> `x.detach().float().numpy()`), at the sites where the tensor
    can be bf16. A chain that already fixes a dtype anywhere (`.to(torch.uint8)`,
    `.to("cpu", dtype=...)`, `.to(dtype=...)`, `.float()`, `.half()`, `.double()`, `.int()`,
    `.long()`, `.bool()`, `.byte()`, `.type(...)`, `.bfloat16()`) is never touched: a uint8
    video frame must stay uint8.

    How "can be bf16" is judged: by intra-function data flow, in source order. A value can
    be bf16 when it is computed inside an enabled autocast region (a call or a matrix
    product inside `with torch.autocast(...)`, or the body of an autocast-decorated
    function, any region dtype), converted to `torch.bfloat16` (`.bfloat16()`,
    `.to(torch.bfloat16)`, `dtype=torch.bfloat16`, `dtype=x.dtype` of such an x), or
    computed from such a value (names, attributes, subscripts, arithmetic and calls
    taking it propagate it through assignments; branches merge, loops run twice), or
    returned by `self(...)` / `self.m(...)` where the class's `forward` / `m` itself uses
    low precision (a model's `predict` calling its own autocast `forward`). Values
    known not to be bf16 stop it: numpy calls, `torch.from_numpy`, comparisons, casts to
    another dtype, integer and bool results even inside a region (token ids from
    `generate()` and its `.sequences`, `argmax`/`argmin`/`argsort`, `nonzero`, `isin`,
    `randint`, the indices of `topk`/`sort`/`max(dim=...)` as `.indices`, `[1]` or the
    second name of `values, indices = ...`, `torch.where(c)` and `torch.where(c, 1, 0)`),
    `.item()`, `.shape`/`.device`/`.dtype`. A site
    changes only when the chain's root (`pred` in `pred.detach().cpu().numpy()`) can be
    bf16. When the function uses low precision (an autocast region, a bf16/fp16 dtype, a
    `.half()`/`.bfloat16()` call) but the root cannot be traced either way (a parameter,
    `self.x`, a model call outside the regions), the site is reported as a warning. Each
    function is judged on its own; module-level code one top-level statement at a time,
    and a class body's code one class-level statement at a time.

    Why: numpy has no bfloat16, so `.numpy()` on a bf16 tensor raises "TypeError: Got
    unsupported ScalarType BFloat16" (`.cpu()` never changes the dtype). On CUDA a
    `torch.autocast(..., dtype=torch.float32)` region around an action head, following a
    bf16 region, makes its outputs fp32; CPU and some torch_npu versions accept only
    fp16/bf16 autocast dtypes and silently disable that region, so on the NPU the outputs
    stay bf16 and the `.numpy()` after it fails (DiT4DiT's `predict_action`).

    Example: `pred.detach().cpu().numpy()` -> `pred.detach().float().cpu().numpy()` when
    `pred` was computed inside an autocast region.

    Safety: safe: the cast is a no-op for fp32 values, exact for bf16 ones (every bf16
    value is a float32 value), and turns an fp16 array into float32 (the only visible
    change: the array's dtype). Caveats: values that cross functions (returned by a
    helper, stored on `self` in another method) are not traced, only warned about when
    the function itself uses low precision; a model whose weights are bf16 but is called
    outside any autocast region is not recognised (no dtype shows in the function).
    """

    code = "NPU003"
    action = "change-dtype"
    name = "low-precision-numpy"
    summary = "Insert .float() before .cpu().numpy() where the tensor can be bfloat16."
    # The call right before `.numpy()` is `.cpu()` or `.detach()` (possibly across lines).
    trigger = Trigger(
        # Two alternatives, each led by its literal, which `re` finds at C speed (a group
        # of them leading the pattern was tried at every position of each file).
        patterns=(
            TokenPattern(
                "numpy",
                r"cpu\s*\(\s*\)\s*\.\s*numpy\s*\(|detach\s*\(\s*\)\s*\.\s*numpy\s*\(",
            ),
        ),
        facts=low_precision_methods,
        local=True,
        reads_around=True,
    )
    examples = (
        Example(
            "import torch\ndef predict(head, h):\n"
            '    with torch.autocast("npu", dtype=torch.bfloat16):\n'
            "        pred = head(h)\n    return pred.detach().cpu().numpy()\n",
            "import torch\ndef predict(head, h):\n"
            '    with torch.autocast("npu", dtype=torch.bfloat16):\n'
            "        pred = head(h)\n    return pred.detach().float().cpu().numpy()\n",
        ),
        Example(
            "import torch\ndef to_frames(frames):\n"
            "    return (frames * 255).to(torch.uint8).cpu().numpy()\n",
            None,
        ),
        Example(
            "def load(frame_data):\n    return frame_data.cpu().numpy()\n",
            None,
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._classes: list[str] = []
        self._top_level: set[int] = set()
        self._functions: list[cst.FunctionDef] = []
        self._verdicts: dict[int, dict[int, Verdict]] = {}

    def visit_Module(self, node: cst.Module) -> None:
        self._top_level = {id(statement) for statement in node.body}

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._classes.append(node.name.value)
        # Code outside functions is judged one statement at a time, a class body's as a
        # module's: a class attribute's `.numpy()` is not bf16 because a sibling
        # attribute names torch.bfloat16.
        if isinstance(node.body, cst.IndentedBlock):
            self._top_level.update(id(statement) for statement in node.body.body)

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.ClassDef:
        self._classes.pop()
        return updated_node

    def _statement_unit(self) -> cst.BaseStatement | None:
        """The innermost statement the walk is in that stands in a module's or a class's
        body."""
        for node in reversed(self._statements):
            if id(node) in self._top_level and isinstance(node, cst.BaseStatement):
                return node
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._functions.pop()
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if numpy_chain(original_node) is None:
            return updated_node
        unit = self._functions[-1] if self._functions else self._statement_unit()
        if unit is None:
            return updated_node
        verdicts = self._verdicts.get(id(unit))
        if verdicts is None:
            facts = self.ctx.facts if isinstance(self.ctx.facts, dict) else {}
            low_methods = (
                facts.get(self._classes[-1], frozenset()) if self._classes else frozenset()
            )
            verdicts = _Flow(self.qualname, self.target.device_type, low_methods).run(unit)
            self._verdicts[id(unit)] = verdicts
        verdict = verdicts.get(id(original_node), Verdict.NONE)
        if verdict is Verdict.WARN:
            self.warn(
                original_node,
                "this tensor may be bfloat16 (the function uses low precision) and numpy has "
                "no bfloat16; its origin could not be traced",
                "insert .float() before .cpu() if it can be bf16",
            )
        if verdict is not Verdict.EDIT:
            return updated_node
        return self.edit(
            original_node,
            updated_node,
            _insert_float(updated_node),
            ".float() before .cpu().numpy(): the tensor can be bfloat16 (traced to an "
            "autocast region or a bf16 cast), which numpy cannot hold",
        )


def _insert_float(site: cst.Call) -> cst.Call:
    """Add `.float()` below the first `.cpu()` of the chain's trailing moves, else below
    `.numpy()` itself."""
    chain = numpy_chain(site)
    assert chain is not None
    calls, _ = chain
    depth = 0
    for index, call in enumerate(calls):
        method = _method(call)
        if method not in _MOVES:
            break
        if method == "cpu":
            depth = index + 1
    return _cast_receiver(site, depth)


def _cast_receiver(call: cst.Call, depth: int) -> cst.Call:
    func = call.func
    assert isinstance(func, cst.Attribute)
    if depth == 0:
        cast = cst.Call(func=cst.Attribute(value=func.value, attr=cst.Name("float")))
        return call.with_changes(func=func.with_changes(value=cast))
    receiver = func.value
    assert isinstance(receiver, cst.Call)
    return call.with_changes(func=func.with_changes(value=_cast_receiver(receiver, depth - 1)))
