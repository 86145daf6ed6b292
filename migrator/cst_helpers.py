"""Small LibCST helpers shared by two or more rules."""

from __future__ import annotations

import re

import libcst as cst

_DEVICE = re.compile(r"^(?P<type>[a-z_]+)(?P<index>:\d+)?$")


def string_value(node: cst.BaseExpression | None) -> str | None:
    """The value of a plain (non-f, non-bytes) string literal, else None."""
    if isinstance(node, cst.SimpleString) and "b" not in node.prefix.lower():
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


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


def replace_arg(call: cst.Call, old: cst.Arg, new: cst.Arg) -> cst.Call:
    return call.with_changes(args=[new if arg is old else arg for arg in call.args])


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
    trailing = last.comma
    if trailing is cst.MaybeSentinel.DEFAULT:
        # Reuse the separator between the previous arguments (one per line stays so).
        before_last = args[-2].comma if len(args) > 1 else None
        separator = (
            before_last
            if isinstance(before_last, cst.Comma)
            else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
        args[-1] = last.with_changes(comma=separator)
        return call.with_changes(args=[*args, new])
    # A trailing comma: keep the layout (multi-line calls stay one argument per line).
    assert isinstance(trailing, cst.Comma)
    previous_comma = args[-2].comma if len(args) > 1 else trailing
    separator = previous_comma if isinstance(previous_comma, cst.Comma) else trailing
    args[-1] = last.with_changes(comma=separator)
    return call.with_changes(args=[*args, new.with_changes(comma=trailing)])


def dotted_name(node: cst.BaseExpression) -> str | None:
    """`a.b.c` as text for Name/Attribute chains, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


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
