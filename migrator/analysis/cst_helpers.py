"""Small LibCST helpers shared by two or more rules."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.bindings import AVAILABILITY

_DEVICE = re.compile(r"^(?P<type>[a-z_]+)(?P<index>:\d+)?$")


def string_value(node: cst.BaseExpression | None) -> str | None:
    """The value of a plain (non-f, non-bytes) string literal, else None."""
    if not isinstance(node, cst.SimpleString):
        return None
    prefix = node.prefix
    if "b" in prefix or "B" in prefix:
        return None
    if "\\" not in node.value and "\r" not in node.value:
        # Nothing to unescape: the text between the quotes. `evaluated_value` compiles
        # the literal (ast.literal_eval), and leaves a cycle of closures for the
        # collector each time (16,000 calls on torch's source).
        return node.raw_value
    value = node.evaluated_value
    return value if isinstance(value, str) else None


def with_string_value(node: cst.SimpleString, value: str) -> cst.SimpleString:
    """The same literal (prefix and quotes kept) holding `value` (no escapes needed)."""
    quote = node.quote
    return node.with_changes(value=f"{node.prefix}{quote}{value}{quote}")


def retarget_device(value: str, source: str, target: str) -> str | None:
    """ "cuda" -> "npu", "cuda:1" -> "npu:1"; None for anything that is not a source device."""
    match = _DEVICE.match(value)
    if match is None or match.group("type") != source:
        return None
    return target + (match.group("index") or "")


def find_arg(call: cst.Call, position: int | None, keyword: str | None) -> cst.Arg | None:
    """The argument passed at `position` (counting positional args) or as `keyword`."""
    positional = 0
    for arg in call.args:
        if arg.keyword is not None:
            if keyword is not None and arg.keyword.value == keyword:
                return arg
            continue
        if arg.star:
            return None
        if position is not None and positional == position:
            return arg
        positional += 1
    return None


def has_keyword(call: cst.Call, *names: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value in names for arg in call.args)


def has_star_kwargs(call: cst.Call) -> bool:
    return any(arg.star == "**" for arg in call.args)


def add_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """Append `name=value`, keeping the call's own comma style and trailing comma."""
    args = list(call.args)
    new = cst.Arg(
        keyword=cst.Name(name),
        value=value,
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    if last.star == "**":
        # Keep `**kwargs` last: insert before it.
        insert_at = len(args) - 1
        previous = args[insert_at - 1] if insert_at > 0 else None
        if previous is None:
            new = new.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            return call.with_changes(args=[new, *args])
        comma = (
            previous.comma
            if previous.comma is not cst.MaybeSentinel.DEFAULT
            else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
        new = new.with_changes(comma=comma)
        return call.with_changes(args=[*args[:insert_at], new, *args[insert_at:]])
    line = _argument_line(call)
    trailing = last.comma
    if line is not None:
        # One argument per line: the new one goes on a line of its own, with the same
        # indentation; a comment after the last argument stays on that argument's line and
        # what closed the call (a newline, comments, the indentation of `)`) still does.
        if isinstance(trailing, cst.Comma):
            closing = trailing.whitespace_after
            last = last.with_changes(comma=trailing.with_changes(whitespace_after=line))
        else:
            closing = last.whitespace_after_arg
            last = last.with_changes(
                comma=cst.Comma(whitespace_after=line),
                whitespace_after_arg=cst.SimpleWhitespace(""),
            )
        line_end: cst.BaseParenthesizableWhitespace = closing
        if isinstance(closing, cst.ParenthesizedWhitespace):
            line_end = closing.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
            last = last.with_changes(
                comma=cst.ensure_type(last.comma, cst.Comma).with_changes(
                    whitespace_after=line.with_changes(
                        first_line=closing.first_line, empty_lines=closing.empty_lines
                    )
                )
            )
        args[-1] = last
        if isinstance(trailing, cst.Comma):
            new = new.with_changes(comma=cst.Comma(whitespace_after=line_end))
        else:
            new = new.with_changes(whitespace_after_arg=line_end)
        return call.with_changes(args=[*args, new])
    if trailing is cst.MaybeSentinel.DEFAULT:
        # Reuse the separator between the previous arguments; what stood between the last
        # argument and `)` (`f(a, b )`) stays before `)`.
        before_last = args[-2].comma if len(args) > 1 else None
        separator = (
            before_last
            if isinstance(before_last, cst.Comma)
            else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
        args[-1] = last.with_changes(comma=separator, whitespace_after_arg=cst.SimpleWhitespace(""))
        return call.with_changes(
            args=[*args, new.with_changes(whitespace_after_arg=last.whitespace_after_arg)]
        )
    # A trailing comma on a call whose arguments share a line: `f(a, b,)` -> `f(a, b, c,)`.
    assert isinstance(trailing, cst.Comma)
    previous_comma = args[-2].comma if len(args) > 1 else trailing
    separator = previous_comma if isinstance(previous_comma, cst.Comma) else trailing
    args[-1] = last.with_changes(comma=separator)
    return call.with_changes(args=[*args, new.with_changes(comma=trailing)])


def _argument_line(call: cst.Call) -> cst.ParenthesizedWhitespace | None:
    """The whitespace that starts each argument's line, when a call puts one per line."""
    args = call.args
    if len(args) > 1:
        before_last = args[-2].comma
        if isinstance(before_last, cst.Comma) and isinstance(
            before_last.whitespace_after, cst.ParenthesizedWhitespace
        ):
            return _bare_line(before_last.whitespace_after)
        return None
    opening = call.whitespace_before_args
    if isinstance(opening, cst.ParenthesizedWhitespace):
        return _bare_line(opening)
    return None


def _bare_line(whitespace: cst.ParenthesizedWhitespace) -> cst.ParenthesizedWhitespace:
    """A line break then `whitespace`'s indentation, without its comments."""
    return whitespace.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])


def assigned_targets(target: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The targets an assignment target stands for, unpacked: `a, (b, *c) = ...` gives
    `a`, `b`, `c` (names, attributes or subscripts, as written)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from assigned_targets(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from assigned_targets(target.value)
    else:
        yield target


def dotted_parts(node: cst.BaseExpression) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"] for Name/Attribute chains, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return parts[::-1]


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` as text for Name/Attribute chains, else None: the one dotted-name helper
    for LibCST trees (`migrator.analysis.bindings.dotted_parts` is its stdlib-`ast` twin).
    Unlike `libcst.helpers.get_full_name_for_node` it names no calls or subscripts
    (`a().b` is None, not "a.b"), so an import target and a callee stay apart."""
    parts = dotted_parts(node)
    return None if parts is None else ".".join(parts)


def attribute_chain(
    node: cst.BaseExpression, replace: dict[str, str], depth: int
) -> cst.BaseExpression:
    """Rename the attribute `depth` steps above the leftmost name, if it is in `replace`."""
    chain: list[cst.Attribute] = []
    current = node
    while isinstance(current, cst.Attribute):
        chain.append(current)
        current = current.value
    chain.reverse()
    if depth >= len(chain):
        return node
    target = chain[depth]
    if target.attr.value not in replace:
        return node
    renamed = target.with_changes(attr=target.attr.with_changes(value=replace[target.attr.value]))
    rebuilt: cst.BaseExpression = renamed
    for outer in chain[depth + 1 :]:
        rebuilt = outer.with_changes(value=rebuilt)
    return rebuilt


def remove_arg(call: cst.Call, old: cst.Arg) -> cst.Call:
    """The call without `old`, keeping the comma style (and trailing comma) of what remains."""
    args = list(call.args)
    index = next(i for i, arg in enumerate(args) if arg is old)
    del args[index]
    if not args:
        return call.with_changes(args=[], whitespace_before_args=cst.SimpleWhitespace(""))
    if index == len(args):
        # The new last argument takes the removed one's ending: trailing comma or none.
        args[-1] = args[-1].with_changes(comma=old.comma)
    return call.with_changes(args=args)


# Device and backend strings ----------------------------------------------------------
#
# One place decides whether a literal spells a source device ("cuda", "cuda:1",
# f"cuda:{rank}", ...) or a source distributed backend ("nccl", "cpu:gloo,cuda:nccl"),
# and what it becomes. Rules decide *where* such a literal is a device or backend.

_DEVICE_TEMPLATE = re.compile(r"^(?P<type>[a-z_]+):(?:\{[^{}]*\}|%[sdi])$")
_DEVICE_NAME = re.compile(r"device|map_location|(?:^|_)dev(?:s|$|_)")
_BACKEND_NAME = re.compile(r"backend")

AUTOCAST_CALLS = frozenset(
    {"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast"}
)
# torch's own scaler; `torch.GradScaler` is the same class (torch re-exports torch.amp's).
GRAD_SCALER_CALLS = frozenset(
    {"torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler", "torch.GradScaler"}
)


def is_device_name(name: str) -> bool:
    """`device`, `DEVICE`, `device_type`, `torch_device`, `self.dev`, `map_location`: names
    that hold a device."""
    return _DEVICE_NAME.search(name.lower()) is not None


def is_backend_name(name: str) -> bool:
    """`backend`, `dist_backend`, `process_group_backend`: names that hold a backend."""
    return _BACKEND_NAME.search(name.lower()) is not None


def _fstring_head(node: cst.FormattedString) -> tuple[str, int] | None:
    """(text of the first part, number of expression parts) of an f-string."""
    if not node.parts or not isinstance(node.parts[0], cst.FormattedStringText):
        return None
    expressions = sum(1 for part in node.parts if isinstance(part, cst.FormattedStringExpression))
    if len(node.parts) != 1 + expressions or expressions > 1:
        return None
    return node.parts[0].value, expressions


def device_literal(
    node: cst.BaseExpression, source: str, target: str, *, prefix: bool = False
) -> tuple[cst.SimpleString | cst.FormattedString, str] | None:
    """The literal inside `node` that spells a `source` device, and its new text.

    Recognised spellings: `"cuda"`, `"cuda:1"`, `f"cuda"`, `f"cuda:{rank}"`,
    `"cuda:" + str(rank)`, `"cuda:{}".format(rank)` and `"cuda:%d" % rank`. The text
    returned is the new string content (for an f-string: its first text part). With
    `prefix`, a bare `"cuda:"` also counts (an argument of `str.startswith`).
    """
    if isinstance(node, cst.SimpleString):
        value = string_value(node)
        if value is None:
            return None
        new = retarget_device(value, source, target)
        if new is None and prefix and value == f"{source}:":
            new = f"{target}:"
        return (node, new) if new is not None else None
    if isinstance(node, cst.FormattedString):
        head = _fstring_head(node)
        if head is None:
            return None
        text, expressions = head
        if expressions:
            return (node, f"{target}:") if text == f"{source}:" else None
        new = retarget_device(text, source, target)
        return (node, new) if new is not None else None
    template: cst.BaseExpression | None = None
    if isinstance(node, cst.BinaryOperation):
        left = string_value(node.left)
        if isinstance(node.operator, cst.Add) and left == f"{source}:":
            return (node.left, f"{target}:") if isinstance(node.left, cst.SimpleString) else None
        if isinstance(node.operator, cst.Modulo):
            template = node.left
    elif (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "format"
    ):
        template = node.func.value
    value = string_value(template)
    if isinstance(template, cst.SimpleString) and value is not None:
        match = _DEVICE_TEMPLATE.match(value)
        if match is not None and match.group("type") == source:
            return template, target + value[len(source) :]
    return None


def retarget_backend(
    value: str, source: str, target: str, source_device: str, device: str
) -> str | None:
    """ "nccl" -> "hccl", "cpu:gloo,cuda:nccl" -> "cpu:gloo,npu:hccl"; None if nothing changes."""
    if value == source:
        return target
    if ":" not in value:
        return None
    pairs: list[str] = []
    for pair in value.split(","):
        kind, sep, backend = pair.partition(":")
        if not sep or not kind.strip() or not backend.strip():
            return None
        kind = device if kind.strip() == source_device else kind
        backend = target if backend.strip() == source else backend
        pairs.append(f"{kind}:{backend}")
    new = ",".join(pairs)
    return new if new != value else None


def literal_leaves(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values an expression may evaluate to, looking through `a if c else b`, `a or b`,
    list/tuple/set displays, comprehension elements and dict values (not keys: a
    `map_location` dict's keys are where tensors were saved, not where they go)."""
    if isinstance(node, cst.IfExp):
        return [*literal_leaves(node.body), *literal_leaves(node.orelse)]
    if isinstance(node, cst.BooleanOperation):
        return [*literal_leaves(node.left), *literal_leaves(node.right)]
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return [
            leaf
            for element in node.elements
            if isinstance(element, cst.Element)
            for leaf in literal_leaves(element.value)
        ]
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return literal_leaves(node.elt)
    if isinstance(node, cst.Dict):
        return [
            leaf
            for element in node.elements
            if isinstance(element, cst.DictElement)
            for leaf in literal_leaves(element.value)
        ]
    return [node]


def terminal_name(node: cst.BaseExpression) -> str | None:
    """The name an assignment target or operand ends in: `x`, `a.b.x`, `cfg["x"]`."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index):
            return string_value(index.value)
    return None


def mentions_name(node: cst.BaseExpression, predicate: Callable[[str], bool]) -> bool:
    """Whether an operand is named like the thing: `device`, `x.device.type`, `args.device`,
    `cfg["device"]`, `get_device()`, `str(device)`."""
    if isinstance(node, cst.Name):
        return predicate(node.value)
    if isinstance(node, cst.Attribute):
        return predicate(node.attr.value) or mentions_name(node.value, predicate)
    if isinstance(node, cst.Subscript):
        key = terminal_name(node)
        return (key is not None and predicate(key)) or mentions_name(node.value, predicate)
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name) and node.func.value in ("str", "repr") and node.args:
            return mentions_name(node.args[0].value, predicate)
        return mentions_name(node.func, predicate)
    return False


def code_of(node: cst.CSTNode) -> str:
    """The source text of a node, for messages."""
    return cst.Module(body=[]).code_for_node(node)


def is_availability_test(test: cst.BaseExpression) -> bool:
    """Whether an `if` test asks if an optional package is there (`is_x_available()`, or
    `TYPE_CHECKING`): a name in it, an attribute's included, says so (the stdlib-ast twin
    is `migrator.analysis.bindings`'). A walk that stops at the first such name (every
    `if` of a function whose names a rule resolves is asked)."""
    stack: list[cst.CSTNode] = [test]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            if AVAILABILITY.match(current.value):
                return True
            continue
        stack.extend(cst_walk.children(current))
    return False
