"""Device strings ("cuda", "cuda:1", f"cuda:{rank}") where the code uses them as a device."""

from __future__ import annotations

import ast
import bisect
from collections.abc import Container, Iterator
from typing import TypeGuard

import libcst as cst

from migrator.analysis.ast_lines import (
    first_line,
    has_lone_cr,
    is_word,
    nodes_of,
    statement_nodes,
)
from migrator.analysis.bindings import dotted_parts
from migrator.analysis.cst_helpers import (
    AUTOCAST_CALLS,
    GRAD_SCALER_CALLS,
    code_of,
    device_literal,
    dotted_name,
    find_arg,
    is_device_name,
    literal_leaves,
    mentions_name,
    retarget_device,
    string_value,
    with_string_value,
)
from migrator.contract.rule import Example, RuleContext, TokenPattern
from migrator.contract.string_positions import StringPositionRule
from migrator.contract.trigger import Trigger
from migrator.core.model import FixAvailability
from migrator.core.target import Target

# Callees whose positional argument at this index is a device.
_DEVICE_ARGUMENT = {
    "torch.device": 0,
    "torch.Generator": 0,
    "torch.load": 1,
    "torch.set_default_device": 0,
}
# Registrations of a kernel for a device: a CUDA kernel registered for "npu" would claim to
# run there. Methods are matched when their receiver is no import (a `Library` object, a
# custom op defined in the file).
_REGISTRATIONS = frozenset(
    {
        "torch.library.custom_op",
        "torch.library.impl",
        "torch.library.register_kernel",
        "torch.library.Library.impl",
    }
)
_REGISTRATION_METHODS = frozenset({"impl", "register_kernel"})


def _is_literal_device(node: ast.expr) -> bool:
    """A value the run rewrites itself: a string, `torch.device("...")`, `a if c else b`."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.IfExp):
        return _is_literal_device(node.body) and _is_literal_device(node.orelse)
    if isinstance(node, ast.Call):
        func = node.func
        named = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return named == "device" and len(node.args) == 1 and _is_literal_device(node.args[0])
    return False


def _target_key(node: ast.expr) -> str | None:
    """`device` or `self.device` (a name, or one attribute of a name), else None."""
    parts = dotted_parts(node)
    return ".".join(parts) if parts is not None and len(parts) <= 2 else None


# The nodes that bind a name or an attribute (`LiteralOnly` reads nothing else).
_BINDING_NODES = (
    ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor,
    ast.comprehension, ast.withitem, ast.arg,
)  # fmt: skip


class LiteralOnly:
    """The names (`device`, `self.device`) every binding of which in the file is a
    literal, as `key in facts`.

    A comparison with such a name follows the literal, which the run rewrites too; any other
    binding (a parameter, a config value, a call) may still hold "cuda" after the run.

    Each name is worked out when first asked about, from the statements whose lines spell
    its last word (a binding of `self.device` spells `device` within its statement): the
    whole file was walked for every binding of every name, the most of NPU010's time on a
    large file with one device comparison. In a text that is not ASCII, its lines that are
    not are walked too (Python normalises identifiers: `device` spelt with a fullwidth "d"
    binds `device`); one that ends a line in a lone carriage return (which the line count
    here would not follow) is walked whole."""

    def __init__(self, tree: ast.Module, text: str) -> None:
        self._tree = tree
        self._text = text
        self._known: dict[str, bool] = {}

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = self._literal_only(key)
        return known

    def _literal_only(self, key: str) -> bool:
        literal = other = False
        for node in self._bindings(key.rpartition(".")[2]):
            pairs: list[tuple[ast.expr, ast.expr | None]] = []
            if isinstance(node, ast.Assign):
                pairs = [(target, node.value) for target in node.targets]
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
                pairs = [(node.target, node.value)]
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                pairs = [(node.target, None)]
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                pairs = [(node.optional_vars, None)]
            elif isinstance(node, ast.arg) and node.arg == key:
                return False
            for target, value in pairs:
                targets = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                for item in targets:
                    if _target_key(item) != key:
                        continue
                    single = value is not None and item is target
                    if single and value is not None and _is_literal_device(value):
                        literal = True
                    else:
                        other = True
        return literal and not other

    def _bindings(self, word: str) -> Iterator[ast.AST]:
        """The binding nodes of the statements whose lines spell `word` (all the file's,
        where its lines cannot be counted so)."""
        text = self._text
        if has_lone_cr(text):
            yield from nodes_of(self._tree, _BINDING_NODES)
            return
        # Where the text is not ASCII, every line that is not (an identifier Python
        # normalises, `device` with a fullwidth "d", binds `device`; a word character
        # beside the word that is not ASCII is on such a line), and each line where the
        # word stands alone (`str.find`: `re` would try a `\b` at every position).
        lines: set[int] = set()
        if not text.isascii():
            parts = text.split("\n")
            lines.update(number for number, part in enumerate(parts, 1) if not part.isascii())
        size, line, last = len(word), 1, 0
        at = text.find(word)
        while at != -1:
            after = at + size
            if (at == 0 or not is_word(text[at - 1])) and (
                after == len(text) or not is_word(text[after])
            ):
                line += text.count("\n", last, at)
                last = at
                lines.add(line)
            at = text.find(word, at + 1)
        spelt = sorted(lines)
        if not spelt:
            return
        # A node whose lines hold no spelling of the word holds no binding of it; a node
        # without lines (a comprehension's `for`, a `with` item) is walked into.
        pending: list[ast.AST] = list(self._tree.body)
        while pending:
            node = pending.pop()
            end = getattr(node, "end_lineno", None)
            if end is not None:
                start = first_line(node) if isinstance(node, ast.stmt) else node.lineno  # type: ignore[attr-defined]
                index = bisect.bisect_left(spelt, start)
                if index == len(spelt) or spelt[index] > end:
                    continue
            if isinstance(node, _BINDING_NODES):
                yield node
            pending.extend(ast.iter_child_nodes(node))


def _source_key(node: cst.BaseExpression) -> str | None:
    """The name a compared device value is read from: `device`, `str(device)`,
    `self.device.type` -> "device" / "self.device"; None when it is no such name."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "str"
        and len(node.args) == 1
    ):
        node = node.args[0].value
    if isinstance(node, cst.Attribute) and node.attr.value == "type":
        node = node.value
    name = dotted_name(node)
    return name if name is not None and name.count(".") <= 1 else None


def _config_key(node: cst.BaseExpression) -> str | None:
    """The config key a compared value is read by: `config["device"]`, `cfg.run.device`,
    `self.device.type`, `str(args.device)`, `cfg.get("device")` -> "device"; None for a
    bare name or anything else (its source is unknown)."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "str"
        and len(node.args) == 1
    ):
        node = node.args[0].value
    if isinstance(node, cst.Attribute) and node.attr.value == "type":
        node = node.value
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        return string_value(index.value) if isinstance(index, cst.Index) else None
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and node.args
    ):
        return string_value(node.args[0].value)
    return None


def _has_source_literal(statement: ast.stmt, target: Target) -> bool:
    # Every literal it rewrites names the source device as a whole, alone or before a
    # colon ("cuda", "cuda:0", f"cuda:{i}", "cuda:" + str(i), "cuda:{}".format(i)); one in
    # another case ("CUDA") counts only as a registration's device type, an argument of a
    # call. Docstrings, log text and names that merely start with it ("cudagraphs") do not.
    source = target.source_device_type
    other_case = False
    nodes = statement_nodes(statement)
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            kind = node.value.split(":", 1)[0]
            if kind == source:
                return True
            other_case = other_case or kind.lower() == source
    return other_case and any(isinstance(node, ast.Call) for node in nodes)


class CudaDeviceString(StringPositionRule):
    """Point device strings at the NPU where the code uses them as a device.

    What it does: rewrites `"cuda"`, `"cuda:N"` and their spelled-out forms (`f"cuda:{rank}"`,
    `"cuda:" + str(rank)`, `"cuda:{}".format(rank)`, `"cuda:%d" % rank`) to the target device
    (`"npu"`, `"npu:N"`, `f"npu:{rank}"`), in place and keeping the quotes, but only where the
    string reaches a device position:

    - device arguments: `torch.device("cuda", i)` / `torch.device(type="cuda")`,
      `torch.Generator("cuda")`, `torch.load(f, "cuda")`, `torch.set_default_device("cuda")`,
      `.to("cuda")` on any receiver, `.cuda("cuda:1")`, the first argument of a `torch.cuda.*`
      API, and the positional arguments of a call whose name holds "device" (`set_device`,
      `get_device_module`, `init_device_mesh`, `to_device(batch, "cuda")`);
    - keywords of any call named `map_location` or holding "device" (`device=`, `device_map=`,
      `device_type=`, `onload_device=`, `torch_device=`); in a dict given there only the values
      change (a `map_location` dict's keys say where tensors were saved);
    - settings found by name: the target of an assignment, annotated field (also through
      `field(default=...)`), parameter default, dict entry, command-line option
      (`add_argument("--device", default=..., choices=[...])`, click's `option`),
      `getattr(x, "device", ...)` / `kw.get("device", ...)` default, or the function whose
      `return` it is, holds "device" or "map_location" (or is `dev`) in any case: `device`,
      `DEVICE`, `self.device`, `cfg["device"]`, `device: str = "cuda"`,
      `def get_device(): return ...`;
    - comparisons with an operand so named: `device_type == "cuda"`, `x.device.type != "cuda"`,
      `"cuda" in str(device)`, `device in ("cuda", "cpu")`, `str(device).startswith("cuda")`,
      so code that decides on its own (`fused = available and device_type == "cuda"`) follows
      (see below for values from outside the file).

    A comparison whose value is read by a config key (`config["device"] == "cuda"`,
    `self.device.type == "cuda"`, `cfg.run.device`) that names device settings NPU120
    migrates in this run's configs (the project view) is rewritten to the NPU alone, so code
    and config agree. Otherwise, a comparison whose compared value may come from outside the
    file's own literals (a
    parameter, `self.device = torch.device(cfg.run.device)`, a config or argparse value, a
    tensor's device) is made to accept both, marked for review, since a shipped config or a
    caller may still say "cuda" (which `transfer_to_npu` maps at run time):
    `device == "cuda"` -> `device in ("cuda", "npu")`, `!=` -> `not in`, `device in ["cpu",
    "cuda"]` -> `["cpu", "cuda", "npu"]`, in the file's quoting. Where every binding of the
    name in the file is a literal (`device = "cuda"`), which this rule rewrites too, the
    literal in the comparison is rewritten as well.

    Behind `a if c else b`, `a or b`, lists, tuples and comprehensions only the literals change:
    `device = "cuda" if torch.cuda.is_available() else "cpu"` keeps its condition (NPU012
    rewrites `torch.cuda.is_available`). A collection that already names the target
    (`device in ("cuda", "npu")`) is left alone.

    Why: on an Ascend host `"cuda"` names a device that does not exist: `torch.device("cuda")`
    objects and `.to("cuda")` fail, `device_type == "cuda"` is never true, so fused kernels,
    autocast and seeding branches silently take their CPU path. `transfer_to_npu` patches the
    device argument of some factories and `.to` at run time, but not settings, defaults,
    argparse choices or comparisons.

    Example: `model.to("cuda")` -> `model.to("npu")`; `def load(device: str = "cuda")` ->
    `def load(device: str = "npu")`.

    Left alone and reported: registrations of a CUDA kernel (`torch.library.custom_op(...,
    device_types="cuda")`, `@torch.library.impl(..., "cuda")`, `op.register_kernel("cuda")`,
    `Library.impl(..., "CUDA")`): the kernel they register is CUDA code, and registering it
    for "npu" would send NPU tensors to it; the warning names the op.

    Left alone: log text, docstrings, comments and strings in any other position; device
    expressions that are not literals (`tensor.device`, a `device` variable,
    `next(model.parameters()).device`). The device argument of an autocast region is NPU001's
    when it is a plain string (this rule takes the other spellings there), and GradScaler's is
    NPU013's.

    Safety: safe. Caveat: positions found by name miss a device held in a variable whose name
    does not say so (`d = "cuda"`); a device string handed to an unrelated API that is named
    like a device would be rewritten too.
    """

    code = "NPU010"
    action = "port-code"
    # Kernel registrations for "cuda" are reported, not rewritten.
    fix_availability = FixAvailability.SOMETIMES
    name = "cuda-device-string"
    summary = (
        'Device strings "cuda", "cuda:N", f"cuda:{i}" in device positions to the target device.'
    )
    # Every device string it rewrites is a quoted literal starting with "cuda", on a line
    # of code: doctest lines (`>>> pipe.to("cuda")` in docstrings) are not candidates.
    trigger = Trigger(
        patterns=(
            TokenPattern(
                "cuda", r"""(?m:^(?![ \t]*(?:>>>|\.\.\.))[^\n]*["']cuda)""", one_line=True
            ),
            # `Library.impl(name, fn, "CUDA")`: reported, never rewritten.
            TokenPattern("CUDA", r"""["']CUDA["']""", one_line=True),
        ),
        statement_gate=_has_source_literal,
        facts=LiteralOnly,
        # Every literal it marks is a "cuda" string on a line of the statement it edits.
        local=True,
        elements=True,
    )

    kind = "device"
    examples = (
        Example(
            'model.to("cuda")\nx = torch.zeros(3, device="cuda:0")\n',
            'model.to("npu")\nx = torch.zeros(3, device="npu:0")\n',
        ),
        Example(
            'device = "cuda" if torch.cuda.is_available() else "cpu"\n'
            'def load(path, device: str = "cuda"):\n    return torch.device(f"cuda:{rank}")\n',
            'device = "npu" if torch.cuda.is_available() else "cpu"\n'
            'def load(path, device: str = "npu"):\n    return torch.device(f"npu:{rank}")\n',
        ),
        Example(
            'fused = available and device_type == "cuda"\n',
            'fused = available and device_type in ("cuda", "npu")\n',
        ),
        Example(
            'DEVICE = "cuda"\nif DEVICE == "cuda":\n    pass\n',
            'DEVICE = "npu"\nif DEVICE == "npu":\n    pass\n',
        ),
        Example('print("running on cuda")\nmode = "cuda"\nx = x.to(tensor.device)\n', None),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        # id(comparison target) -> the literal it compares with, to accept both devices.
        self._widen: dict[int, cst.SimpleString] = {}

    def literal(
        self, node: cst.BaseExpression, *, prefix: bool = False
    ) -> tuple[cst.SimpleString | cst.FormattedString, str] | None:
        return device_literal(
            node, self.target.source_device_type, self.target.device_type, prefix=prefix
        )

    def names_thing(self, name: str) -> bool:
        return is_device_name(name)

    def is_target_literal(self, node: cst.BaseExpression) -> bool:
        value = string_value(node)
        device = self.target.device_type
        return value is not None and retarget_device(value, device, device) is not None

    def skips_call(self, call: cst.Call) -> bool:
        name = self.qualname(call.func)
        return (
            name in AUTOCAST_CALLS or name in GRAD_SCALER_CALLS or self._registers(call) is not None
        )

    def _registers(self, call: cst.Call) -> str | None:
        """The op a call registers a kernel of the source device for, or None."""
        func = call.func
        name = self.qualname(func)
        method = isinstance(func, cst.Attribute) and func.attr.value in _REGISTRATION_METHODS
        # `device_types=` is the registration keyword of torch.library's custom ops; it
        # also finds them through a module-level alias (`_custom_op = torch.library.custom_op`).
        keyword = find_arg(call, None, "device_types") is not None
        if name not in _REGISTRATIONS and not (method and name is None) and not keyword:
            return None
        source = self.target.source_device_type
        devices = [string_value(leaf) for arg in call.args for leaf in literal_leaves(arg.value)]
        if not any(d is not None and d.split(":")[0].lower() == source for d in devices):
            return None
        if isinstance(func, cst.Attribute) and func.attr.value == "register_kernel" and method:
            return dotted_name(func.value) or "an op"
        names = [string_value(arg.value) for arg in call.args if arg.keyword is None]
        ops = (n for n in names if n is not None and n.split(":")[0].lower() != source)
        return next(ops, "an op")

    # Comparisons with values from outside the run ---------------------------------------
    def visit_Comparison(self, node: cst.Comparison) -> None:
        super().visit_Comparison(node)
        left = node.left
        for target in node.comparisons:
            compared = target.comparator
            operator = target.operator
            literal = (
                self._source_literal(compared, operator)
                if isinstance(operator, (cst.Equal, cst.NotEqual, cst.In, cst.NotIn))
                else None
            )
            if (
                literal is not None
                and self.names_thing_in(left)
                # The file's literal-only names walk the whole file: read last.
                and _source_key(left) not in self._literal_names()
                # Read from a config key whose values this run migrates too (the project
                # view): both sides move to the NPU, so the plain rewrite keeps them agreeing.
                and _config_key(left) not in self.ctx.project.config_device_keys()
            ):
                self._marks.pop(id(literal), None)
                self._widen[id(target)] = literal
            left = compared

    def _literal_names(self) -> Container[str]:
        facts = self.ctx.facts
        return facts if isinstance(facts, LiteralOnly) else frozenset()

    def names_thing_in(self, node: cst.BaseExpression) -> bool:
        return mentions_name(node, self.names_thing)

    def _source_literal(
        self, compared: cst.BaseExpression, operator: cst.BaseCompOp
    ) -> cst.SimpleString | None:
        if isinstance(operator, (cst.Equal, cst.NotEqual)):
            return compared if self._is_source(compared) else None
        if not isinstance(compared, (cst.List, cst.Tuple, cst.Set)):
            return None
        elements = [e.value for e in compared.elements if isinstance(e, cst.Element)]
        if any(self.is_target_literal(e) for e in elements):
            return None
        return next((e for e in elements if self._is_source(e)), None)

    def _is_source(self, node: cst.BaseExpression) -> TypeGuard[cst.SimpleString]:
        value = string_value(node)
        source, device = self.target.source_device_type, self.target.device_type
        return value is not None and retarget_device(value, source, device) is not None

    def leave_ComparisonTarget(
        self, original_node: cst.ComparisonTarget, updated_node: cst.ComparisonTarget
    ) -> cst.ComparisonTarget:
        literal = self._widen.pop(id(original_node), None)
        if literal is None:
            return updated_node
        value = string_value(literal)
        assert value is not None
        new_value = retarget_device(value, self.target.source_device_type, self.target.device_type)
        assert new_value is not None
        added = with_string_value(literal, new_value)
        operator = updated_node.operator
        comparator = updated_node.comparator
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        if isinstance(operator, (cst.Equal, cst.NotEqual)):
            replacement = updated_node.with_changes(
                operator=(cst.In if isinstance(operator, cst.Equal) else cst.NotIn)(
                    whitespace_before=operator.whitespace_before,
                    whitespace_after=operator.whitespace_after,
                ),
                comparator=cst.Tuple([cst.Element(comparator, comma=comma), cst.Element(added)]),
            )
        else:
            assert isinstance(comparator, (cst.List, cst.Tuple, cst.Set))
            elements = list(comparator.elements)
            original = original_node.comparator
            assert isinstance(original, (cst.List, cst.Tuple, cst.Set))
            at = next(i for i, e in enumerate(original.elements) if e.value is literal)
            found = elements[at]
            # The new element takes the found one's place in the layout: `["cpu", "cuda"]`
            # -> `["cpu", "cuda", "npu"]`, `("cuda",)` -> `("cuda", "npu",)`.
            elements[at : at + 1] = [
                found.with_changes(comma=comma),
                cst.Element(added, comma=found.comma),
            ]
            replacement = updated_node.with_changes(
                comparator=comparator.with_changes(elements=elements)
            )
        message = (
            f"device comparison {code_of(literal)} -> also {code_of(added)}: the compared "
            f"value may still be {code_of(literal)} (a config, an argument, a caller)"
        )
        return self.edit(original_node, updated_node, replacement, message, review=True)

    def visit_Call(self, node: cst.Call) -> None:
        op = self._registers(node)
        if op is not None:
            source, device = self.target.source_device_type, self.target.device_type
            self.warn(
                node,
                f"{op}: registers a {source.upper()} kernel; left as it is",
                f"register a kernel written for the {device.upper()} (or none: the op then "
                f'runs its default implementation) under device type "{device}"',
            )
        super().visit_Call(node)

    def call_positions(self, call: cst.Call) -> Iterator[cst.BaseExpression]:
        name = self.qualname(call.func)
        source, device = self.target.source_device_type, self.target.device_type
        if name in AUTOCAST_CALLS:
            # NPU001 rewrites a plain string there; other spellings are left to this rule.
            arg = find_arg(call, 0, "device_type")
            if arg is not None and string_value(arg.value) is None:
                yield arg.value
            return
        if name in GRAD_SCALER_CALLS:
            return
        positions: list[cst.Arg | None] = [find_arg(call, None, "map_location")]
        if name in _DEVICE_ARGUMENT:
            positions.append(find_arg(call, _DEVICE_ARGUMENT[name], None))
        if name == "torch.device":
            positions.append(find_arg(call, None, "type"))
        if name is not None and name.startswith((f"torch.{source}.", f"torch.{device}.")):
            positions.append(find_arg(call, 0, None))
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("to", source, device):
            positions.append(find_arg(call, 0, None))
        for arg in positions:
            if arg is not None:
                yield arg.value
