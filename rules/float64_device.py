"""float64 tensors on the device."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.ast_lines import (
    first_line,
    last_line,
    nested_statements,
    statement_nodes,
)
from migrator.analysis.bindings import dotted_parts, import_bindings, module_bindings
from migrator.analysis.cst_helpers import find_arg, is_device_name, mentions_name, string_value
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import RegionView, Trigger
from migrator.contract.unsupported import fill, reported
from migrator.core.model import FixAvailability
from migrator.core.target import Target

_TORCH_F64 = frozenset({"torch.float64", "torch.double"})
_NUMPY_F64 = frozenset({"numpy.float64", "numpy.double", "numpy.float_"})
_F64_STRINGS = frozenset({"float64", "double", "f8", "<f8"})
_CPU_DOUBLE = "torch.DoubleTensor"


def _device_modules(target: Target) -> tuple[str, ...]:
    """The torch modules whose DoubleTensor is float64 on the device: the source's
    (`torch.cuda`) and the target's, which NPU012 made of it before this rule runs."""
    return (target.source_device_type, target.device_type)


def _device_doubles(target: Target) -> frozenset[str]:
    return frozenset(f"torch.{module}.DoubleTensor" for module in _device_modules(target))


# torch calls that build a tensor and take `dtype=` / `device=`.
_FACTORIES = frozenset(
    {"tensor", "as_tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace",
     "rand", "randn", "randint", "eye", "zeros_like", "ones_like", "empty_like", "full_like",
     "rand_like", "randn_like", "from_numpy", "scalar_tensor"}
)  # fmt: skip
# Methods whose result keeps the receiver's dtype and device.
_KEEPS = frozenset(
    {"detach", "clone", "contiguous", "view", "reshape", "squeeze", "unsqueeze", "flatten",
     "permute", "transpose", "t", "sum", "mean", "requires_grad_", "pin_memory"}
)  # fmt: skip
_COLLECTIVES = frozenset(
    {"all_reduce", "all_gather", "all_gather_into_tensor", "reduce", "broadcast",
     "reduce_scatter", "reduce_scatter_tensor", "all_reduce_coalesced", "all_to_all_single"}
)  # fmt: skip
_MATMULS = frozenset(
    {"torch.matmul", "torch.mm", "torch.bmm", "torch.einsum", "torch.addmm", "torch.baddbmm",
     "torch.cdist", "torch.nn.functional.linear", "torch.inner", "torch.outer",
     "torch.inverse", "torch.linalg.inv"}
)  # fmt: skip
_NOT_DEVICES = frozenset({"cpu", "meta"})

_MOVES = frozenset({"cuda", "npu", "to", "cpu"})
# Base classes of models (by qualified-name prefix): the methods of such a class work on
# the model's inputs and parameters, which live on the device while it trains or infers.
_MODEL_BASES = (
    "torch.nn.",
    "pytorch_lightning.LightningModule",
    "lightning.",
    "mmcv.runner.BaseModule",
    "mmcv.runner.base_module.",
    "mmengine.model.",
    "mmdet.models.",
    "mmdet3d.models.",
    "mmseg.models.",
    "transformers.PreTrainedModel",
    "transformers.modeling_utils.PreTrainedModel",
)

Where = Literal["cpu", "device", "unknown"]


@dataclass(frozen=True)
class _Value:
    """What the rule knows of an expression: float64 or not, and where it lives."""

    float64: bool
    where: Where


_UNKNOWN = _Value(False, "unknown")


@dataclass
class _Site:
    node: cst.CSTNode
    message: str
    uses: list[str] = field(default_factory=list)


# A name's value, and the reported site it comes from.
_Known = tuple[_Value, "_Site | None"]


def _strings(node: cst.CSTNode) -> list[cst.SimpleString]:
    return cst_walk.find_all(node, cst.SimpleString)


def _method(call: cst.Call) -> str | None:
    return call.func.attr.value if isinstance(call.func, cst.Attribute) else None


class _Calls(cst.CSTVisitor):
    """Calls (outermost first), `@` operations and assignments of a unit, in source order.

    Code that cannot run on the device is left out: a `with torch.device("cpu"):` block,
    and the `else` of an `if` whose test names the target device (`if x.device.type in
    {"mps", "npu"}:` is the project's own device path; its `else` never runs there).
    """

    def __init__(self, cpu_block: Callable[[cst.With], bool], device: str) -> None:
        self.events: list[cst.CSTNode] = []
        self._cpu_block = cpu_block
        self._device = device
        self._skip = 0

    def visit_Call(self, node: cst.Call) -> None:
        if not self._skip:
            self.events.append(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.MatrixMultiply) and not self._skip:
            self.events.append(node)

    def visit_With(self, node: cst.With) -> None:
        if self._cpu_block(node):
            self._skip += 1

    def leave_With(self, original_node: cst.With) -> None:
        if self._cpu_block(original_node):
            self._skip -= 1

    def _names_device(self, node: cst.If) -> bool:
        return any(string_value(leaf) == self._device for leaf in _strings(node.test))

    def visit_If_orelse(self, node: cst.If) -> None:
        if self._names_device(node):
            self._skip += 1

    def leave_If_orelse(self, node: cst.If) -> None:
        if self._names_device(node):
            self._skip -= 1

    def leave_Assign(self, original_node: cst.Assign) -> None:
        self.events.append(original_node)


# Names and attributes `_is_f64` can take for float64 (an import's alias by what it binds).
_F64_NAMES = frozenset({"float64", "double", "float_", "DoubleTensor"})


def _moves(call: ast.Call) -> bool:
    """A call that may place a value on the device as `_places_on_device` and `_value`
    read one: `.cuda()`, `.npu()`, or `.to()` / `.type()` given an argument `_is_device`
    may take for a device (`x.to(*args, **kwargs)` is not one: the rule reads `args`
    and `kwargs` as names that hold no device)."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    if func.attr in ("cuda", "npu"):
        return True
    if func.attr not in ("to", "type"):
        return False
    values = [*call.args, *(keyword.value for keyword in call.keywords)]
    return any(_may_be_device(value) for value in values)


def _may_be_device(node: ast.expr) -> bool:
    """Whether `_is_device` may take an argument for a device (a superset): a string not
    naming the CPU or meta, a name or attribute named like a device (`is_device_name`),
    `.device`, and anything but a name, an attribute or a constant."""
    if isinstance(node, ast.Starred):
        return _may_be_device(node.value)
    if isinstance(node, ast.Constant):
        text = node.value
        return isinstance(text, str) and text.split(":", 1)[0] not in _NOT_DEVICES
    if isinstance(node, ast.Name):
        return is_device_name(node.id)
    if isinstance(node, ast.Attribute):
        return node.attr == "device" or is_device_name(node.attr) or _may_be_device(node.value)
    return True


def _device_double(
    node: ast.Attribute, names: Mapping[str, Sequence[str | None]], modules: frozenset[str]
) -> bool:
    """`torch.cuda.DoubleTensor` (`_value` places it on the device), however it is used
    and spelt: `tc.DoubleTensor` where an import binds `tc` to `torch.cuda` counts."""
    if node.attr != "DoubleTensor":
        return False
    value = node.value
    if isinstance(value, ast.Attribute):
        return value.attr in modules
    return isinstance(value, ast.Name) and _names_one_of(value.id, names, modules)


def _binds_device_double(
    name: str, names: Mapping[str, Sequence[str | None]], tails: tuple[str, ...]
) -> bool:
    """A name that may stand for `torch.cuda.DoubleTensor`: `DoubleTensor` itself, or a
    name an import binds to it (`from torch.cuda import DoubleTensor as CDT`)."""
    return name == "DoubleTensor" or any(
        value and value.endswith(tails) for value in names.get(name, ())
    )


def _may_report(region: RegionView) -> bool:
    """Whether a region can hold a report, read from the stdlib tree: it must make a
    float64 value the way `_value` reads one, where every report starts (a call named by
    a name or attribute spelling float64: `.double()`, `np.float64(x)`,
    `torch.cuda.DoubleTensor(n)`; a `dtype=` keyword spelling it, or a numpy dtype given
    as a string or as `float`: `dtype=torch.float64`, `dtype="f8"`; an argument of `.to()`
    / `.type()` / `.astype()` spelling it: `.to(torch.double)`, `.astype(float)`; a name
    an import binds to one counts), and reach the device: a method of a model class (the
    rule's facts), `.cuda()` / `.npu()`, `.to()` / `.type()` given what may be a device
    (`_moves`), `torch.cuda.DoubleTensor` however spelt (`_device_double`,
    `_binds_device_double`), a `device=` keyword or a collective."""
    f64 = device = False
    names = region.names
    modules = frozenset(_device_modules(region.target))
    tails = tuple(f"{module}.DoubleTensor" for module in sorted(modules))
    for statement in region.statements:
        for node in statement_nodes(statement):
            kind = type(node)
            if kind is ast.Attribute:
                assert isinstance(node, ast.Attribute)
                device = device or node.attr in _COLLECTIVES or _device_double(node, names, modules)
            elif kind is ast.Name:
                assert isinstance(node, ast.Name)
                device = (
                    device
                    or _names_one_of(node.id, names, _COLLECTIVES)
                    or _binds_device_double(node.id, names, tails)
                )
            elif kind is ast.keyword:
                assert isinstance(node, ast.keyword)
                f64 = f64 or (
                    node.arg == "dtype"
                    and (_numpy_dtype(node.value) or _spells_f64(node.value, names))
                )
                device = device or node.arg == "device"
            elif kind is ast.Call:
                assert isinstance(node, ast.Call)
                func = node.func
                device = device or _moves(node)
                # float64 enters a unit only where `_value` reads it: a call it names
                # (`.double()`, `np.float64(x)`, `torch.DoubleTensor(n)`), a `dtype=`
                # keyword (above), a dtype given to `.to()` / `.type()` / `.astype()`.
                # `x.dtype == torch.float64` makes nothing float64, nor does a dtype
                # passed to another call (`floating_types_and(torch.double)`).
                method = func.attr if isinstance(func, ast.Attribute) else None
                f64 = f64 or (
                    _spells_f64(func, names)
                    or (
                        method in ("to", "type", "astype")
                        and any(_spells_f64(arg, names) for arg in node.args)
                    )
                    or (method == "astype" and bool(node.args) and _numpy_dtype(node.args[0]))
                )
            elif kind is ast.Import or kind is ast.ImportFrom:
                # A function's own imports: `from numpy import float64 as F8` inside it.
                assert isinstance(node, (ast.Import, ast.ImportFrom))
                for _, dotted in import_bindings(node):
                    tail = dotted.rsplit(".", 1)[-1]
                    f64 = f64 or tail in _F64_NAMES
                    device = device or tail in _COLLECTIVES or tail in modules
                    device = device or dotted.endswith(tails)
            if f64 and device:
                return True
    # The model classes' line ranges walk the whole file: read only when they decide.
    ranges = region.facts if f64 else ()
    return any(
        first <= last_line(statement) and first_line(statement) <= last
        for statement in region.statements
        for first, last in (ranges if isinstance(ranges, tuple) else ())
    )


def _spells_f64(node: ast.expr, names: Mapping[str, Sequence[str | None]]) -> bool:
    """A name or attribute that may spell float64 (`torch.float64`, `np.double`,
    `torch.cuda.DoubleTensor`, a name an import binds to one)."""
    if isinstance(node, ast.Attribute):
        return node.attr in _F64_NAMES
    return isinstance(node, ast.Name) and _names_one_of(node.id, names, _F64_NAMES)


def _names_one_of(
    name: str, names: Mapping[str, Sequence[str | None]], wanted: frozenset[str]
) -> bool:
    """`name` is one of `wanted`, or an import binds it to a dotted name ending in one."""
    return name in wanted or any(
        value and value.rsplit(".", 1)[-1] in wanted for value in names.get(name, ())
    )


def _numpy_dtype(node: ast.expr) -> bool:
    """`float`, or a string `_is_f64` reads as numpy's float64 (`"f8"`, `"double"`)."""
    if isinstance(node, ast.Name):
        return node.id == "float"
    return isinstance(node, ast.Constant) and node.value in _F64_STRINGS


def _model_classes(tree: ast.Module, text: str) -> tuple[tuple[int, int], ...]:
    """The line ranges of the file's model classes (see `_MODEL_BASES`), a class derived
    from an earlier model class of the file included."""
    bindings = module_bindings(tree)
    models: set[str] = set()
    ranges: list[tuple[int, int]] = []
    classes = [node for node in nested_statements(tree.body) if isinstance(node, ast.ClassDef)]
    for node in sorted(classes, key=lambda c: c.lineno):
        for base in node.bases:
            parts = dotted_parts(base)
            if parts is None:
                continue
            head = bindings.resolve(parts[0])
            name = ".".join([head, *parts[1:]]) if head is not None else None
            local = len(parts) == 1 and parts[0] in models
            if local or (
                name is not None
                and any(
                    name.startswith(prefix) or name == prefix.rstrip(".") for prefix in _MODEL_BASES
                )
            ):
                models.add(node.name)
                ranges.append((node.lineno, node.end_lineno or node.lineno))
                break
    return tuple(ranges)


class Float64Device(PythonRule):
    """Report float64 tensors on the device: created there, cast there, moved there, or
    all-reduced there.

    What it reports, in a function (or a module-level statement) that works on the device:

    - a torch factory with `dtype=torch.float64` (or `torch.double`) and a device:
      `torch.tensor([count, total], dtype=torch.float64, device="cuda")`,
      `torch.zeros(n, dtype=torch.double, device=x.device)`;
    - a cast to float64 of a device tensor: `x.double()`, `x.to(torch.float64)`,
      `x.to(device, torch.float64)`, `x.type(torch.cuda.DoubleTensor)`;
    - a float64 value moved to the device: `torch.from_numpy(a).cuda()` or
      `.to(device)` where `a` is an explicit numpy float64 array (`dtype=np.float64`,
      `.astype(np.float64)`, `.astype(float)`), `torch.tensor(a, device=device)`,
      `t.cuda()` of a float64 tensor made on the CPU;
    - a float64 tensor passed to a collective (`dist.all_reduce`, `all_gather`, ...)
      when the rule has not reported where it was made.

    Each site is reported once (a chain such as `torch.from_numpy(a).double().cuda()` is
    one site), and the message names the ops of the function that use the tensor where the
    source shows them: collectives, `torch.matmul`/`mm`/`bmm`/`einsum`/`F.linear`, `@`,
    `torch.inverse`.

    Why: the NPU computes in float16, bfloat16 and float32; the Atlas A2 matmul takes
    BF16/FP16/FP32 only and several kernels have no float64 kernel. torch_npu turns
    `.double()` / `.to(torch.float64)` of an NPU tensor into float32 with the warning
    "Device do not support double dtype now, dtype cast replace with float.", so code that
    relies on float64 (metric loggers that all-reduce sums in float64, numerically
    sensitive geometry) silently runs in float32 or fails in a kernel.

    Example: in a metric logger's
    `t = torch.tensor([self.count, self.total], dtype=torch.float64, device="cuda")`
    followed by `dist.all_reduce(t)`, one warning at the `torch.tensor` call, naming
    `dist.all_reduce`; the suggestion is float32 (int64 for counts) or CPU math.

    Safety: reports only. Whether float32 is precise enough is the project's call; keep
    float64 math on the CPU where it matters (`device="cpu"`, move the float32 result).

    Caveats: float64 on CPU-only code is not reported: a site counts as on the device only
    when its own expression places it there, when its function moves something to a
    device (`.cuda()`, `.npu()`, `.to(device)`, `device=...`, a collective), or when its
    function is a method of a model class (a subclass of `torch.nn.Module`, a Lightning
    module, an mmcv/mmengine `BaseModule`, an mmdet/mmdet3d/mmseg model, a transformers
    `PreTrainedModel`, or a class of the same file derived from one): such a method works
    on the model's inputs and parameters, on the device (`torch.inverse(pose.double())`
    in a detector's `prepare_inputs` is reported). Code that
    cannot run on the device is skipped: a `with torch.device("cpu"):` block, a factory
    whose `device=` is a tensor's `.device` made on the CPU, and the `else` of an `if`
    whose test names the target device (`if x.device.type in {"mps", "npu"}:`, the
    project's own NPU path). numpy arrays
    that are float64 by default (`np.zeros(n)`, `np.array([1.0])`) are not known to be
    float64 and are not reported; nor is `torch.set_default_dtype(torch.float64)`. Names
    are followed within one function (or one module-level statement), in source order.
    """

    code = "NPU062"
    action = "change-dtype"
    fix_availability = FixAvailability.NEVER
    name = "float64-device"
    summary = "Report float64 tensors on the device (made, cast, moved, all-reduced): no fp64."
    trigger = Trigger(
        # numpy spells float64 `"f8"`, `"<f8"` and `float` too (`_is_f64`); without
        # their tokens the fast path skipped what the full path reported.
        tokens=(
            "float64",
            "double",
            "DoubleTensor",
            "np.float_",
            "f8'",
            'f8"',
            "astype(float",
            "dtype=float",
        ),
        region=_may_report,
        facts=_model_classes,
    )
    examples = (
        reported(
            "import torch\n\n\ndef sync(count, total):\n"
            '    t = torch.tensor([count, total], dtype=torch.float64, device="cuda")\n'
            "    torch.distributed.all_reduce(t)\n"
            "    return t\n"
        ),
        reported("def gram(x):\n    x = x.cuda()\n    return x.double() @ x.double().T\n"),
        Example(
            "import torch\n\n\ndef stats(values):\n"
            "    t = torch.tensor(values, dtype=torch.float64)\n"
            "    return t.mean().item()\n"
        ),
        Example("def to_cpu(x):\n    return x.detach().cpu().double().numpy()\n"),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._depth = 0
        self._function: cst.FunctionDef | None = None
        self._device_doubles = _device_doubles(ctx.target)

    # Units --------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        pending: list[cst.BaseStatement] = list(node.body)
        while pending:
            statement = pending.pop(0)
            if isinstance(statement, cst.ClassDef):
                pending[:0] = [
                    item for item in statement.body.body if isinstance(item, cst.BaseStatement)
                ]
            elif not isinstance(statement, cst.FunctionDef):
                self._unit(statement)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._depth == 0:
            self._function = node
        self._depth += 1

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        # The function's scope opens at its body: its parameters shadow imports from here.
        if self._function is not None and node is self._function.body:
            self._unit(self._function)
            self._function = None

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._depth -= 1
        return updated_node

    def _unit(self, unit: cst.CSTNode) -> None:
        self._names: dict[str, _Known] = {}
        calls = _Calls(self._cpu_block, self.target.device_type)
        cst_walk.visit(unit, calls)
        self._done: set[int] = set()
        self._sites: list[_Site] = []
        self._unit_node, self._events = unit, calls.events
        self._on_device: bool | None = None
        # Ops that use a tensor are resolved once every site is known (an op's arguments
        # are visited after it), with the names as they stood at the op.
        ops: list[tuple[str, list[cst.BaseExpression], cst.CSTNode, dict[str, _Known]]] = []
        for event in calls.events:
            if isinstance(event, cst.Assign):
                self._assign(event)
            elif isinstance(event, cst.BinaryOperation):
                ops.append(("@", [event.left, event.right], event, dict(self._names)))
            elif isinstance(event, cst.Call):
                op = self._collective(event) or self.qualname(event.func)
                if op is not None and (op.startswith("dist.") or op in _MATMULS):
                    operands = [arg.value for arg in event.args]
                    ops.append((op, operands, event, dict(self._names)))
                elif id(event) not in self._done:
                    self._call(event)
        for op, operands, node, names in ops:
            self._used_by(op, operands, node, names)
        for site in self._sites:
            uses = ", ".join(dict.fromkeys(site.uses))
            message = site.message + (f"; used by {uses}" if uses else "")
            self.warn(site.node, fill(message, self.target), fill(_SUGGESTION, self.target))

    def _reaches_device(self) -> bool:
        """Whether the unit works on the device: a method of a model class, or code that
        places something there. Read the first time a site of unknown place asks (the
        model classes walk the whole file), with the unit's names as they stood at its
        start."""
        if self._on_device is None:
            unit, names = self._unit_node, self._names
            self._names = {}
            try:
                self._on_device = (
                    isinstance(unit, cst.FunctionDef) and self._model_method(unit)
                ) or any(self._places_on_device(event) for event in self._events)
            finally:
                self._names = names
        return self._on_device

    def _model_method(self, function: cst.FunctionDef) -> bool:
        line = self.ctx.first_line(function, self._statements)
        ranges = self.ctx.facts if isinstance(self.ctx.facts, tuple) else ()
        return any(first <= line <= last for first, last in ranges)

    def _cpu_block(self, node: cst.With) -> bool:
        for item in node.items:
            call = item.item
            if (
                isinstance(call, cst.Call)
                and self.qualname(call.func) == "torch.device"
                and call.args
                and not self._is_device(call.args[0].value)
            ):
                return True
        return False

    # Where a value lives ------------------------------------------------------------
    def _is_f64(self, node: cst.BaseExpression, numpy: bool = False) -> bool:
        name = self.qualname(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if (
            name in _TORCH_F64
            or name in _NUMPY_F64
            or name == _CPU_DOUBLE
            or name in self._device_doubles
        ):
            return True
        if numpy and isinstance(node, cst.Name) and node.value == "float":
            return not self.is_bound("float")
        return numpy and string_value(node) in _F64_STRINGS

    def _is_device(self, node: cst.BaseExpression) -> bool:
        """A device argument that is not the CPU."""
        text = string_value(node)
        if text is not None:
            return text.split(":", 1)[0] not in _NOT_DEVICES
        if isinstance(node, cst.Call) and self.qualname(node.func) == "torch.device":
            return bool(node.args) and self._is_device(node.args[0].value)
        if (
            isinstance(node, cst.Attribute)
            and node.attr.value == "device"
            and isinstance(node.value, cst.Name)
            and node.value.value in self._names
        ):
            # `device=freqs.device` of a tensor the unit made on the CPU.
            return self._names[node.value.value][0].where != "cpu"
        return mentions_name(node, is_device_name)

    def _places_on_device(self, event: cst.CSTNode) -> bool:
        if not isinstance(event, cst.Call):
            return False
        method = _method(event)
        if method in ("cuda", "npu"):
            return True
        if method == "to" and any(self._is_device(arg.value) for arg in event.args):
            return True
        device = find_arg(event, None, "device")
        if device is not None and self._is_device(device.value):
            return True
        return self._collective(event) is not None

    def _collective(self, call: cst.Call) -> str | None:
        name = self.qualname(call.func)
        if name is None or not name.startswith("torch.distributed."):
            return None
        short = name.rsplit(".", 1)[-1]
        return f"dist.{short}" if short in _COLLECTIVES else None

    def _value(self, node: cst.BaseExpression) -> _Value:
        if isinstance(node, cst.Name):
            known = self._names.get(node.value)
            return known[0] if known is not None else _UNKNOWN
        if not isinstance(node, cst.Call):
            return _UNKNOWN
        method = _method(node)
        name = self.qualname(node.func)
        if name is not None and name.startswith("numpy."):
            dtype = find_arg(node, None, "dtype")
            f64 = name in _NUMPY_F64 or (dtype is not None and self._is_f64(dtype.value, True))
            return _Value(f64, "cpu")
        if name is not None and name.startswith("torch.") and name[6:] in _FACTORIES:
            dtype = find_arg(node, None, "dtype")
            if dtype is not None:
                f64 = self._is_f64(dtype.value)
            else:
                source = node.args[0].value if node.args else None
                f64 = source is not None and name[6:] in ("tensor", "as_tensor", "from_numpy")
                f64 = f64 and source is not None and self._value(source).float64
            device = find_arg(node, None, "device")
            where: Where = "device" if device and self._is_device(device.value) else "cpu"
            return _Value(f64, where)
        if name == _CPU_DOUBLE or name in self._device_doubles:
            return _Value(True, "device" if name in self._device_doubles else "cpu")
        if method is None:
            return _UNKNOWN
        assert isinstance(node.func, cst.Attribute)
        receiver = self._value(node.func.value)
        if method == "double":
            return _Value(True, receiver.where)
        if method in ("float", "half", "bfloat16", "int", "long"):
            return _Value(False, receiver.where)
        if method in ("cuda", "npu"):
            return _Value(receiver.float64, "device")
        if method in ("cpu", "numpy"):
            return _Value(receiver.float64, "cpu")
        if method == "astype":
            dtype = find_arg(node, 0, "dtype")
            f64 = dtype is not None and self._is_f64(dtype.value, True)
            return _Value(f64, "cpu")
        if method in ("to", "type"):
            f64 = receiver.float64
            where = receiver.where
            for arg in node.args:
                dtype_slot = arg.keyword is None or arg.keyword.value == "dtype"
                if dtype_slot and self._is_f64(arg.value):
                    f64 = True
                    if self.qualname(arg.value) in self._device_doubles:
                        where = "device"
                    continue
                if arg.keyword is None or arg.keyword.value == "device":
                    text = string_value(arg.value)
                    if text is not None and text.split(":", 1)[0] in _NOT_DEVICES:
                        where = "cpu"
                    elif self._is_device(arg.value):
                        where = "device"
            return _Value(f64, where)
        if method in _KEEPS:
            return receiver
        return _UNKNOWN

    # Sites --------------------------------------------------------------------------
    def _chain(self, call: cst.Call) -> None:
        """Mark the calls inside a reported site's receiver chain as done."""
        node: cst.BaseExpression = call
        while isinstance(node, cst.Call):
            self._done.add(id(node))
            for arg in node.args:
                if isinstance(arg.value, cst.Call):
                    self._chain(arg.value)
            node = node.func.value if isinstance(node.func, cst.Attribute) else node.func

    def _origin(
        self, node: cst.BaseExpression, names: dict[str, _Known] | None = None
    ) -> _Site | None:
        """The reported site a value comes from: itself, or what it keeps or moves."""
        names = self._names if names is None else names
        while True:
            found = next((site for site in self._sites if site.node is node), None)
            if found is not None:
                return found
            if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
                break
            if _method(node) not in _KEEPS | _MOVES:
                return None
            node = node.func.value
        if isinstance(node, cst.Name) and node.value in names:
            return names[node.value][1]
        return None

    def _call(self, call: cst.Call) -> None:
        site = self._site(call)
        if site is not None:
            self._sites.append(site)
            self._chain(call)

    def _site(self, call: cst.Call) -> _Site | None:
        value = self._value(call)
        if not value.float64 or value.where == "cpu":
            return None
        if value.where == "unknown" and not self._reaches_device():
            return None
        method = _method(call)
        name = self.qualname(call.func)
        if method is not None and name is None:
            assert isinstance(call.func, cst.Attribute)
            before = self._value(call.func.value)
            if before.float64 and before.where != "cpu":
                return None  # nothing new here: the receiver was already float64 there
            shown = f".{method}()"
            if not before.float64:
                return _Site(call, f"{shown} makes a float64 tensor on the {{DEVICE}}: {_WHY_CAST}")
            return _Site(call, f"{shown} moves a float64 tensor to the {{DEVICE}}: {_WHY}")
        if name is None:
            return None
        return _Site(call, f"{name}() makes a float64 tensor on the {{DEVICE}}: {_WHY}")

    def _used_by(
        self,
        op: str,
        operands: list[cst.BaseExpression],
        node: cst.CSTNode,
        names: dict[str, _Known],
    ) -> None:
        for operand in operands:
            origin = self._origin(operand, names)
            if origin is not None:
                # Its line only where a site names it (a position generates code).
                origin.uses.append(f"{op} (line {self.ctx.span(node)[0]})")
                continue
            self._names = names
            if op.startswith("dist.") and self._value(operand).float64:
                self._sites.append(
                    _Site(node, f"{op}() of a float64 tensor on the {{DEVICE}}: {_WHY}")
                )
                if isinstance(node, cst.Call):
                    self._chain(node)
                return

    def _assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name):
            return
        target = node.targets[0].target.value
        value = self._value(node.value)
        reported_here = self._origin(node.value)
        if value.float64 or value.where != "unknown":
            self._names[target] = (value, reported_here if value.float64 else None)
        else:
            self._names.pop(target, None)


_WHY = "the {DEVICE}'s matmul and several kernels have no float64"
_WHY_CAST = (
    'torch_npu turns it into float32 ("Device do not support double dtype now"), and the '
    "{DEVICE}'s matmul has no float64"
)
_SUGGESTION = (
    "use torch.float32 (int64 for counts), or keep the float64 math on the CPU "
    '(device="cpu") and move the float32 result'
)
