"""Migrating one Python source text: the fast path and the full path.

The full path parses the whole module with LibCST and runs every rule over it. The fast
path gives the same result for less: a rule can only act where one of its declared tokens
occurs, so the engine

1. skips the file without parsing when no selected rule's token occurs in it;
2. otherwise parses it with the stdlib `ast` (about ten times cheaper than LibCST), finds
   the top-level statements (or methods of classes, nested ones included) whose code holds
   a token, ignoring docstrings and comment lines, and
3. parses and transforms only those regions with LibCST, running in each only the rules
   whose tokens occur there, and splices the results back by line.

A region is a whole statement, so a rule sees the same function, class member or
statement it would see in the whole module; module-level imports reach it through the
shared `ModuleBindings`. A rule that needs the whole module (`Unit.MODULE`), and every rule
after it in the run's order, runs on one full parse of what the per-region passes left;
an import a rule asks for is written on a parse of the module's head only. What the
engine skips it reads from each rule's `Trigger` (`migrator.contract.trigger`): tokens
(whole words for `words=True`) and patterns, the `gate` (a rule whose gate says it cannot
act in the file is left out first, before any whole-module parse), the `statement_gate`,
`names` and `region` gates (per region), `always` and `paths`.
`tests/test_fast_path.py` checks on a real corpus that both paths give identical output.
"""

from __future__ import annotations

import ast
import bisect
import copy
import difflib
import functools
import itertools
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import libcst as cst

from migrator.analysis import cst_inits, cst_walk
from migrator.analysis.ast_lines import (
    LineSearch,
    alternatives,
    first_line,
    has_lone_cr,
    hot_lines_of,
    indentation,
    is_word,
    last_line,
    logical_groups,
    part_literal,
    qualified_names,
    statement_nodes,
    summary,
    walk,
    whole_word,
)
from migrator.analysis.bindings import (
    EMPTY,
    ModuleBindings,
    chain,
    import_bindings,
    module_bindings,
)
from migrator.analysis.device_regions import (
    plain_chain,
    says_only_on_source,
    with_own_imports,
)
from migrator.analysis.occurrences import Occurrences, any_between, finder
from migrator.analysis.positions import StartLines, module_code
from migrator.analysis.scopes import PassCache
from migrator.analysis.skeletons import Skeleton, cold_skeleton, may_stand_in, restored
from migrator.analysis.statement_spans import (
    Spanned,
    cold,
    data_assignments,
    inner_statements,
    region_spans,
    statement_starts,
)
from migrator.contract.rule import (
    ImportRequest,
    PythonRule,
    RuleContext,
    RuleOptions,
    WouldEdit,
)
from migrator.contract.trigger import FileView, QuietDefinitions, RegionView
from migrator.core.model import Finding, FixAvailability, Outcome, settled
from migrator.core.project import EMPTY as EMPTY_PROJECT
from migrator.core.project import ProjectView
from migrator.core.target import Target
from migrator.formats.sources import SourceError, split_lines
from migrator.formats.suppressions import MARKER, Suppressions, python_suppressions


@dataclass(frozen=True)
class Region:
    """Lines first..last (1-based, inclusive). A method (or a nested class) is wrapped in
    stand-ins of the classes around it: `header` holds their `class <name>:` lines. An
    element of a large display is wrapped in its statement's lines before and after
    the elements (`header`, `trailer`; see `_element_regions`)."""

    first: int
    last: int
    header: str = ""
    # The stdlib-ast statements the region holds (for the rules' cheap ast checks).
    statements: tuple[ast.stmt, ...] = ()
    # What closes the stand-in `header` opens, for an element of a display
    # (`_element_regions`); the regions of the elements of this one's display that hold
    # a hot line, when it is such a statement.
    trailer: str = ""
    elements: tuple[Region, ...] = ()
    # The file line of each line of the region's parse, where they are not consecutive.
    line_map: tuple[int, ...] = ()


def parse_ast(text: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except SyntaxError as error:
            raise SourceError(f"cannot parse: {error.msg}", error.lineno) from None
        except (ValueError, MemoryError, RecursionError) as error:
            raise SourceError(f"cannot parse: {error}") from None


def parse_cst(text: str, line_offset: int = 0) -> cst.Module:
    try:
        module = _parse_unvalidated(text)
    except cst.ParserSyntaxError as error:
        raise SourceError(
            f"LibCST cannot parse: {error.message}", error.raw_line + line_offset
        ) from None
    except RecursionError:
        raise SourceError("LibCST cannot parse: nesting too deep") from None
    if text.endswith("\r") and not module.has_trailing_newline:
        # LibCST reads a last line that ends in a lone "\r" as one with no line ending,
        # and its code then drops the "\r": an edited file lost its last line's ending.
        return module.with_changes(has_trailing_newline=True)
    return module


def _unvalidated(self: cst.CSTNode) -> None:
    """What `CSTNode.__post_init__` is while the parser builds a tree: nothing."""


def _parse_unvalidated(text: str) -> cst.Module:
    """`cst.parse_module(text)` without LibCST's validation of each node it builds: every
    node's generated `__init__` calls `CSTNode.__post_init__`, which validates it (its
    whitespace, its parentheses), and a tree the parser built from source is valid by
    construction (LibCST's own comment there says validating a parsed tree could be
    avoided). That was an eighth of each parse. The check is back for the nodes the
    rules build once the parse returns, raising or not; where a LibCST release no longer
    defines the hook on `CSTNode`, the parse validates as before."""
    # A large run's nodes are built by the faster constructors (`cst_inits`).
    cst_inits.parsing(len(text))
    hook = vars(cst.CSTNode).get("__post_init__")
    if hook is None:
        return cst.parse_module(text)
    cst.CSTNode.__post_init__ = _unvalidated  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = hook  # type: ignore[method-assign]


def _is_string_statement(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _docstring_lines(node: ast.stmt) -> range:
    body = getattr(node, "body", None)
    if body and _is_string_statement(body[0]):
        first, last = body[0].lineno, last_line(body[0])
        if len(body) > 1 and body[1].lineno == last:
            last -= 1
        return range(first, last + 1)
    return range(0)


def _hot_in(hot: Sequence[int], first: int, last: int, skip: range) -> bool:
    index = bisect.bisect_left(hot, first)
    while index < len(hot) and hot[index] <= last:
        if hot[index] not in skip:
            return True
        index += 1
    return False


def find_regions(
    tree: ast.Module,
    hot: Sequence[int],
    lines: Sequence[str] = (),
    named_only: Callable[[ast.ClassDef], bool] | None = None,
) -> list[Region]:
    """The smallest whole statements that hold every hot line (sorted, disjoint);
    `named_only(node)`: whether a class's header lines are hot only through its name
    (`class CUDAGraphNode:`), which no rule acts on: its members are then regions as
    those of a class with a cold header."""
    regions: list[Region] = []
    for first, last, members in logical_groups(tree.body, lines):
        if len(members) == 1 and _is_string_statement(members[0]):
            continue
        skip = _docstring_lines(members[0]) if len(members) == 1 else range(0)
        if not _hot_in(hot, first, last, skip):
            continue
        only = members[0] if len(members) == 1 else None
        if isinstance(only, ast.ClassDef):
            methods = _class_regions(only, hot, lines, "", named_only)
            if methods is not None:
                regions.extend(methods)
                continue
        elements = _element_regions(only, first, last, hot, lines) if only else ()
        regions.append(Region(first, last, statements=tuple(members), elements=elements))
    return regions


# A module-level display at least this long is split into its elements when every rule
# that may act in it allows (`Trigger.elements`).
_LARGE_DISPLAY = 4_096
# What may follow an element on its last line (its comma and a comment), and an opening
# bracket on its line.
_ELEMENT_END = re.compile(r"[ \t]*(?P<comma>,?)[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n)?")
_LINE_END = re.compile(r"[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n)?")


def _element_regions(
    statement: ast.stmt, first: int, last: int, hot: Sequence[int], lines: Sequence[str]
) -> tuple[Region, ...]:
    """The regions of the hot elements of a large display a module-level statement (lines
    `first`..`last`) assigns or is, each in a stand-in made of the statement's own lines
    around its elements: the lines up to the opening bracket and from the closing one,
    so a rule sees the element, the target and the annotation as in the statement,
    without the other elements (`Trigger.elements`). None unless every element stands
    on lines of its own (nothing before it on its first line, only its comma and a
    comment after it on its last; a tuple's each with its comma), the brackets end and
    start their lines, no line outside the elements is hot, and the statement assigns
    to no tuple or list of targets (which pairs its names with the elements)."""
    value = getattr(statement, "value", None)
    if not isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Expr)) or not isinstance(
        value, (ast.List, ast.Tuple, ast.Set, ast.Dict)
    ):
        return ()
    targets = statement.targets if isinstance(statement, ast.Assign) else ()
    if any(isinstance(target, (ast.Tuple, ast.List, ast.Starred)) for target in targets):
        return ()
    if sum(len(line) for line in lines[first - 1 : last]) < _LARGE_DISPLAY:
        return ()
    items: list[tuple[ast.expr, ast.expr]]
    if isinstance(value, ast.Dict):
        # A `**mapping` item has no key.
        items = [(key, item) for key, item in zip(value.keys, value.values, strict=True) if key]
        if len(items) != len(value.keys):
            return ()
    else:
        items = [(item, item) for item in value.elts]
    assert value.end_lineno is not None and value.end_col_offset is not None
    opening, closing = lines[value.lineno - 1], lines[value.end_lineno - 1]
    at = _char_column(opening, value.col_offset)
    shut = _char_column(closing, value.end_col_offset) - 1
    if (
        not items
        or opening[at : at + 1] not in ("(", "[", "{")
        or not _LINE_END.fullmatch(opening, at + 1)
        or closing[:shut].strip(" \t")
    ):
        return ()
    spans: list[tuple[int, int]] = []
    before = value.lineno
    for start, end in items:
        assert end.end_lineno is not None and end.end_col_offset is not None
        head, tail = lines[start.lineno - 1], lines[end.end_lineno - 1]
        ending = _ELEMENT_END.fullmatch(tail, _char_column(tail, end.end_col_offset))
        if (
            start.lineno <= before
            or head[: _char_column(head, start.col_offset)].strip(" \t")
            or ending is None
            or (isinstance(value, ast.Tuple) and not ending.group("comma"))
        ):
            return ()
        if not _blank_between(lines, before, start.lineno):
            return ()
        spans.append((start.lineno, end.end_lineno))
        before = end.end_lineno
    if value.end_lineno <= before or not _blank_between(lines, before, value.end_lineno):
        return ()
    # Every hot line of the statement lies in an element.
    index = bisect.bisect_left(hot, first)
    rest = iter(spans)
    span = next(rest)
    while index < len(hot) and hot[index] <= last:
        while span[1] < hot[index]:
            span = next(rest, (last + 1, last + 1))
        if hot[index] < span[0]:
            return ()
        index += 1
    header = "".join(lines[first - 1 : value.lineno])
    trailer = "".join(lines[value.end_lineno - 1 : last])
    around = (range(first, value.lineno + 1), range(value.end_lineno, last + 1))
    regions = []
    for (start, end), (element_first, element_last) in zip(items, spans, strict=True):
        if not _hot_in(hot, element_first, element_last, range(0)):
            continue
        shown = _stand_in_statement(statement, value, start, end, element_last)
        line_map = (*around[0], *range(element_first, element_last + 1), *around[1])
        regions.append(
            Region(element_first, element_last, header, (shown,), trailer, line_map=line_map)
        )
    return tuple(regions)


def _blank_between(lines: Sequence[str], after: int, before: int) -> bool:
    """Whether the lines strictly between `after` and `before` hold only blanks and
    comments: an element's parentheses on lines of their own (`(`, `),`) lie outside
    the stdlib node's lines, and a stand-in without them would not parse or would read
    differently."""
    return all(_LINE_END.fullmatch(line) for line in lines[after : before - 1])


def _stand_in_statement(
    statement: ast.stmt, value: ast.expr, start: ast.expr, end: ast.expr, last: int
) -> ast.stmt:
    """The stdlib statement of an element's stand-in, for the rules' gates: `statement`
    with a one-element display (of `start`, or the dict item `start: end`) for `value`,
    ending on the element's last line."""
    shown = copy.copy(statement)
    one: ast.expr
    if isinstance(value, ast.Dict):
        one = ast.Dict(keys=[start], values=[end])
    elif isinstance(value, ast.Set):
        one = ast.Set(elts=[start])
    elif isinstance(value, ast.Tuple):
        one = ast.Tuple(elts=[start], ctx=ast.Load())
    else:
        one = ast.List(elts=[start], ctx=ast.Load())
    ast.copy_location(one, value)
    one.end_lineno = shown.end_lineno = last
    shown.value = one  # type: ignore[attr-defined]
    return shown


def _char_column(line: str, offset: int) -> int:
    """The character column of a stdlib node's `col_offset` (UTF-8 bytes) on `line`."""
    return offset if line.isascii() else len(line.encode()[:offset].decode(errors="replace"))


def _char_at(lines: Sequence[str], line: int, offset: int) -> str:
    text = lines[line - 1]
    column = _char_column(text, offset)
    return text[column : column + 1]


def _class_regions(
    node: ast.ClassDef,
    hot: Sequence[int],
    lines: Sequence[str],
    header: str,
    named_only: Callable[[ast.ClassDef], bool] | None = None,
) -> list[Region] | None:
    """Regions for the members of a class and of the classes nested in it, or None when
    the class must go whole (`header`: the stand-ins of the classes around it).

    A method or nested class is a region in stand-ins of the classes around it; so is a
    class-level statement (`is_cuda: bool`, `device = "cuda"`) that shares no name with
    the class's other members (`_shares_names`): in the stand-in it sees what it sees in
    the class, the module's names, and nothing the class body binds. A class of 4,000
    lines with one such statement was parsed and walked whole by every rule with a
    token anywhere in it."""
    body_first = first_line(node.body[0])
    if body_first <= node.lineno:
        return None
    if _hot_in(hot, first_line(node), body_first - 1, range(0)) and not (
        named_only is not None and named_only(node)
    ):
        return None
    line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    indent = indentation(line)
    if not line[len(indent) :].startswith("class"):
        return None
    inner = f"{header}{indent}class {node.name}:\n"
    regions: list[Region] = []
    statements: list[ast.stmt] = []
    for first, last, members in logical_groups(node.body, lines):
        if len(members) == 1 and _is_string_statement(members[0]):
            continue
        skip = _docstring_lines(members[0]) if len(members) == 1 else range(0)
        if not _hot_in(hot, first, last, skip):
            continue
        if len(members) > 1:
            return None
        member = members[0]
        nested = None
        if isinstance(member, ast.ClassDef):
            nested = _class_regions(member, hot, lines, inner, named_only)
        if nested is not None:
            regions.extend(nested)
        else:
            regions.append(Region(first, last, inner, (member,)))
            if not isinstance(member, _DEFINITIONS):
                statements.append(member)
    if statements and _shares_names(node, statements):
        return None
    return regions


_CLASS_NAME = re.compile(r"[ \t]*class[ \t]+(\w+)")


def _named_only(
    lines: Sequence[str],
    offsets: Sequence[int],
    patterns: Sequence[RulePattern],
    node: ast.ClassDef,
) -> bool:
    """Whether no rule's token is in a class's header lines once its name is blanked
    (`offsets`: where each line starts in the file's text)."""
    first, body_first = first_line(node), first_line(node.body[0])
    header = list(lines[first - 1 : body_first - 1])
    index = node.lineno - first
    found = _CLASS_NAME.match(header[index]) if 0 <= index < len(header) else None
    if found is None or found.group(1) != node.name:
        return False
    start, end = found.span(1)
    header[index] = header[index][:start] + " " * (end - start) + header[index][end:]
    blanked = "".join(header)
    return not any(pattern.search(blanked, offsets[first - 1]) for pattern in patterns)


def _shares_names(node: ast.ClassDef, statements: Sequence[ast.stmt]) -> bool:
    """Whether one of `statements` (class-level statements of `node` that are not
    definitions) would see, or show, other than what the class's parse shows the rules
    once it is a region of its own:

    - it spells a name another member binds (the class scope resolves it there, the
      module in the stand-in);
    - it binds a name another class-level statement spells;
    - it holds code (a call, a lambda, a comprehension) and binds a name a method spells,
      as a name or an attribute (`HAS_FA = is_flash_attn_2_available()`, then `if
      self.HAS_FA:` guards an import: a rule reads such a flag off the region). A
      statement of plain data (`is_cuda: bool`, `device = "cuda"`) makes no such state,
      and a method's plain name never resolves to the class scope."""
    bound = {id(member): _class_level_bindings(member) for member in node.body}
    chains: dict[int, frozenset[tuple[str, ...]]] = {}
    for statement in statements:
        mine = bound[id(statement)]
        held = summary(statement)
        plain = not _CODE.intersection(held.kinds)
        for member in node.body:
            if member is statement:
                continue
            if any(chain[0] in bound[id(member)] for chain in held.chains):
                return True
            if isinstance(member, _DEFINITIONS) and plain:
                continue
            # A method's names are read only where a statement holds code: a walk of
            # every method of a large class for each hot `device = "cuda"` was not.
            spelt = chains.get(id(member))
            if spelt is None:
                spelt = chains[id(member)] = summary(member).chains
            if any((chain[0] in mine) if plain else not mine.isdisjoint(chain) for chain in spelt):
                return True
    return False


# What makes a class-level statement more than plain data (see `_shares_names`).
_CODE = frozenset(
    {ast.Call, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
     ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom}
)  # fmt: skip
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Nodes that bind a name of their own: definitions, `except E as name`, match captures.
_NAMED = (*_DEFINITIONS, ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)


def _class_level_bindings(member: ast.stmt) -> set[str]:
    """The names a class-level statement may bind in the class's scope (a superset:
    every name it stores or deletes, nested scopes' too; a definition binds its name)."""
    if isinstance(member, _DEFINITIONS):
        return {member.name}
    found: set[str] = set()
    for node in walk(member):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(name for name, _ in import_bindings(node))
        elif isinstance(node, _NAMED):
            name = node.rest if isinstance(node, ast.MatchMapping) else node.name
            if name:
                found.add(name)
    return found


def alias_tokens(rule: type[PythonRule], bindings: ModuleBindings) -> tuple[str, ...]:
    """Regexes for what a rule's tokens look like through this file's import aliases.

    `from torch import autocast as ac` makes `ac` (a whole word) a token of a rule whose
    token is "autocast", so `with ac("cuda"):` is found although the line never says
    "autocast". A dotted token follows an alias of its head: with `import torch as th`,
    the token "torch.cuda" also matches `th.cuda`.
    """
    return _alias_tokens(rule, bindings.imports) if bindings.names else ()


def own_alias_tokens(rule: type[PythonRule], inner: ModuleBindings) -> tuple[str, ...]:
    """`alias_tokens` of the names a region's own imports bind (`_own_imports`), from a
    cache of their own: a tree whose functions import a lot (torch's) would otherwise push
    the files' entries out of `_alias_tokens`' cache."""
    return _own_alias_tokens(rule, inner.imports) if inner.names else ()


def _alias_parts(
    rule: type[PythonRule], imports: tuple[tuple[str, tuple[str, ...]], ...]
) -> tuple[str, ...]:
    """`alias_tokens` of a set of imports (`ModuleBindings.imports`)."""
    parts: set[str] = set()
    for name, values in imports:
        for value in values:
            whole, rests = _through(rule, value)
            if whole:
                parts.add(rf"\b{re.escape(name)}\b")
            for rest in rests:
                parts.add(rf"\b{re.escape(name)}\.{re.escape(rest)}")
    return tuple(sorted(parts))


# A file's imports: the same few recur in every file of a project, and a notebook's cells
# each ask again with every name the cells before them bound.
_alias_tokens = functools.lru_cache(maxsize=4096)(_alias_parts)
# A region's own imports (`own_alias_tokens`).
_own_alias_tokens = functools.lru_cache(maxsize=1024)(_alias_parts)


def _through(rule: type[PythonRule], value: str) -> tuple[bool, tuple[str, ...]]:
    """For a name an import binds to `value` (a dotted name): whether one of the rule's
    tokens is part of `value` (the name then stands for it), and the rest of each dotted
    token whose head is `value` ("cuda.amp" of "torch.cuda.amp" for `torch`). Where the
    trigger says what an alias must lead to (`Trigger.through`), only what leads there."""
    holds, rests = _token_index(rule)
    whole, found = holds(value), rests.get(value, ())
    through = rule.trigger.through
    if through is None:
        return whole, found
    return (
        whole and _leads_to(value, through),
        tuple(rest for rest in found if _leads_to(f"{value}.{rest}", through)),
    )


def _leads_to(value: str, names: Sequence[str]) -> bool:
    """Whether a dotted name some chain's head resolves to (`value`) may make a qualified
    name that is one of `names` or under one: it is one, a module above one, or under one."""
    return any(
        value == name or name.startswith(value + ".") or value.startswith(name + ".")
        for name in names
    )


# A rule with more tokens than this finds them in an import's name with an automaton.
_MANY_TOKENS = 16


@functools.cache
def _token_index(
    rule: type[PythonRule],
) -> tuple[Callable[[str], bool], dict[str, tuple[str, ...]]]:
    """What `_through` reads of a rule's tokens, made once per rule: whether a text holds
    one of them, and the rests of the dotted ones by each head they have. The imports of
    torch's source name some 60,000 (rule, module) pairs, and each was checked against
    every token (a words rule has hundreds) through a cache that did not hold them."""
    tokens = rule.trigger.tokens
    rests: dict[str, list[str]] = {}
    for token in tokens:
        head, dot, rest = token.partition(".")
        while dot:
            rests.setdefault(head, []).append(rest)
            step, dot, rest = rest.partition(".")
            head = f"{head}.{step}"
    table = {head: tuple(found) for head, found in rests.items()}
    if len(tokens) <= _MANY_TOKENS:
        return (lambda value: any(token in value for token in tokens)), table
    import ahocorasick_rs

    automaton = ahocorasick_rs.AhoCorasick(list(dict.fromkeys(tokens)))
    return (lambda value: bool(automaton.find_matches_as_indexes(value))), table


def rule_pattern(rule: type[PythonRule], bindings: ModuleBindings) -> tuple[str, ...]:
    """Every regex that shows a rule may act here: tokens, declared patterns, aliases."""
    return (*_own_parts(rule), *alias_tokens(rule, bindings))


def line_literals(rule: type[PythonRule]) -> dict[str, str]:
    """The regexes of a rule's `one_line` patterns, each with its literal."""
    return {p.regex: p.literal for p in rule.trigger.patterns if p.one_line}


def _own_parts(rule: type[PythonRule]) -> tuple[str, ...]:
    """The regexes a rule's trigger spells itself: its tokens and declared patterns."""
    return (
        *rule.trigger.token_regexes(),
        *(pattern.regex for pattern in rule.trigger.patterns),
    )


class RulePattern:
    """`rule_pattern`'s regexes for one file, searched in pieces that give the same
    answers as their one alternation (`search`), or a superset of its match starts
    (`starts`: the lines they fall on are what counts, and a piece may find a start
    inside another piece's match):

    - the rule's whole-word parts (`\\bNAME\\b`: a words rule has hundreds), read off the
      file's scan (`found`): an occurrence of NAME with no word character on either side;
      `re` tries each alternative at every position of a region, and a leading `\\b`
      defeats its literal-prefix search (1 s of a torch run for one rule);
    - each of the rest whose every match begins with a literal (`part_literal`; a part
      `a|b` is split into its alternatives first), tried with `match` only where the
      scan found the literal: `re` searches a part led by `\\b` or a lookbehind at every
      position;
    - the parts left, one alternation, the same in every file, compiled once a run
      (`_compiled`);
    - the file's aliases of its tokens (`alias_tokens`), few, where the file has some:
      whole words and literal parts like the rule's own (`\\bNAME\\b`, `\\bNAME\\.REST`),
      their literals found once a file (`Occurrences.starts`), and any other one an
      alternation. Searched as one alternation, led by `\\b`, `re` tried them at every
      position of every region (0.35 s of a torch run, mostly `\\btorch\\.cuda` after
      `import torch`), and compiled that alternation anew per file: a rule with 140 tokens
      cost 6 ms a compile."""

    def __init__(self, rule: type[PythonRule], aliases: Sequence[str], found: Occurrences) -> None:
        self.lines, self.words, self.literal_parts, self.rest = _pieces(rule)
        self.aliases: re.Pattern[str] | None = None
        if aliases:
            names = [name for name in map(whole_word, aliases) if name]
            self.words = tuple(dict.fromkeys((*self.words, *names)))
            others = [part for part in aliases if not whole_word(part)]
            self.literal_parts += tuple(
                (part_literal(part), _compiled((part,))) for part in others if part_literal(part)
            )
            loose = [part for part in others if not part_literal(part)]
            self.aliases = compile_parts(loose) if loose else None
        self.found = found
        # (start, length) of each whole-word occurrence of a word in the file, in order.
        self._hits: list[tuple[int, int]] | None = None

    def hits(self) -> list[tuple[int, int]]:
        if self._hits is None:
            text = self.found.text
            hits = []
            for name in self.words:
                size = len(name)
                for at in self.found.starts(name):
                    end = at + size
                    if (at and is_word(text[at - 1])) or (end < len(text) and is_word(text[end])):
                        continue
                    hits.append((at, size))
            hits.sort()
            self._hits = hits
        return self._hits

    def _word_starts(self, text: str, offset: int) -> Iterator[int]:
        """Where a word stands whole in `text`, a slice of the file's text from `offset`
        on, or one as long with string literals blanked (`without_strings`)."""
        hits = self.hits()
        index = bisect.bisect_left(hits, (offset, 0))
        end = offset + len(text)
        while index < len(hits) and hits[index][0] < end:
            at, size = hits[index]
            index += 1
            start = at - offset
            if (
                start + size > len(text)
                or text[start : start + size] != self.found.text[at : at + size]
            ):
                continue
            # Its edges hold in the file's text, so in `text`: blanking writes only spaces.
            yield start

    def _literal_starts(self, text: str, offset: int) -> Iterator[int]:
        """Where a part with a literal matches in `text` (as `_word_starts`): at an
        occurrence of its literal, where every match of it begins."""
        end = offset + len(text)
        for literal, regex in self.literal_parts:
            occurs = self.found.starts(literal)
            index = bisect.bisect_left(occurs, offset)
            while index < len(occurs) and occurs[index] < end:
                if regex.match(text, occurs[index] - offset) is not None:
                    yield occurs[index] - offset
                index += 1

    def search(self, text: str, offset: int) -> bool:
        """Whether a part matches in `text`, the file's text from `offset` on (a region
        that starts a line and ends one), or that text with its strings blanked."""
        return (
            (self.rest is not None and self.rest.search(text) is not None)
            or any(lines.search(text) is not None for lines in self.lines)
            or (self.aliases is not None and self.aliases.search(text) is not None)
            or next(self._literal_starts(text, offset), None) is not None
            or next(self._word_starts(text, offset), None) is not None
        )

    def starts(self, text: str, offset: int) -> list[int]:
        """Where a match starts in `text` (as `search`), each piece's own matches."""
        found = list(self._word_starts(text, offset)) if self.words else []
        found += self._literal_starts(text, offset)
        if self.rest is not None:
            found += [match.start() for match in self.rest.finditer(text)]
        for lines in self.lines:
            found += [match.start() for match in lines.finditer(text)]
        if self.aliases is not None:
            found += [match.start() for match in self.aliases.finditer(text)]
        return found


_Pieces = tuple[
    tuple[LineSearch, ...],
    tuple[str, ...],
    tuple[tuple[str, re.Pattern[str]], ...],
    re.Pattern[str] | None,
]


@functools.cache
def _pieces(rule: type[PythonRule]) -> _Pieces:
    """A rule's own regexes as `RulePattern` searches them, the same in every file: its
    `one_line` patterns (each tried on the lines that hold its literal, `LineSearch`), its
    whole words, its parts led by a literal (each with it) and one alternation of the
    rest, or None."""
    lined = line_literals(rule)
    lines = tuple(LineSearch(literal, regex) for regex, literal in lined.items())
    own = [
        alternative
        for part in _own_parts(rule)
        if part not in lined
        for alternative in alternatives(part)
    ]
    words = tuple(dict.fromkeys(name for name in map(whole_word, own) if name))
    rest = [part for part in own if not whole_word(part)]
    literal_parts = tuple(
        (part_literal(part), _compiled((part,))) for part in rest if part_literal(part)
    )
    loose = [part for part in rest if not part_literal(part)]
    return lines, words, literal_parts, compile_parts(loose) if loose else None


# A string literal (any prefix, any quotes; a backslash escapes the next character, a
# newline too) or a comment, scanned from the left as the tokenizer reads them. Each
# alternative begins with a literal character (a quote, a prefix letter, "#"), so `re`
# skips at C speed to the places one may start: led by an optional prefix, one pattern
# was tried at every position (ten times slower on code without strings).
_STRING_LITERALS = (
    r"\'\'\'(?:\\[\s\S]|[^\\])*?\'\'\'",
    r'"""(?:\\[\s\S]|[^\\])*?"""',
    r"'(?:\\[\s\S]|[^'\\\n])*'",
    r'"(?:\\[\s\S]|[^"\\\n])*"',
)
_STRING_OR_COMMENT = re.compile(
    "|".join(
        [
            *_STRING_LITERALS,
            *(rf"{letter}[rRbBuUfF]?(?:{'|'.join(_STRING_LITERALS)})" for letter in "rRbBuUfF"),
            r"#[^\n]*",
        ]
    )
)
_BLANK = re.compile(r"[^\r\n]")


def without_strings(code: str) -> str:
    """`code` with each string literal blanked, lines kept (f-strings and comments stay:
    an f-string's braces hold code), for the tokens of rules that act only on names
    (`Trigger.words`)."""

    def blank(match: re.Match[str]) -> str:
        text = match.group(0)
        first = text[0]
        if first == "#":
            return text
        if first not in "'\"":
            prefix = text[: min(at for at in (text.find("'"), text.find('"')) if at >= 0)]
            if "f" in prefix.lower():
                return text
        if "\n" in text or "\r" in text:
            return _BLANK.sub(" ", text)
        return " " * len(text)

    return _STRING_OR_COMMENT.sub(blank, code)


def compile_parts(parts: Sequence[str]) -> re.Pattern[str]:
    return _compiled(tuple(sorted(set(parts))))


@functools.lru_cache(maxsize=4096)
def _compiled(unique: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation of `unique`, compiled once a run: each file asks again for each
    rule's (its aliases seldom differ between files), more patterns than `re`'s own cache
    of 512 holds, so that cache kept compiling them anew (8% of a diffusers run)."""
    return re.compile("|".join(unique) if unique else r"(?!)")


class _Run:
    """One file's rule runs; collects what the rules report."""

    def __init__(
        self, path: str, target: Target, options: RuleOptions, bindings: ModuleBindings,
        suppressions: Suppressions, facts: Mapping[str, object] | None = None,
        project: ProjectView = EMPTY_PROJECT,
    ) -> None:  # fmt: skip
        self.path = path
        self.project = project
        self.facts = facts or {}
        self.target = target
        self.options = options
        self.bindings = bindings
        self.suppressions = suppressions
        self.findings: list[Finding] = []
        self.edits = 0
        self.imports: list[ImportRequest] = []
        # The code of the tree the last `transform` returned, where it was known.
        self.code: str | None = None

    def mark(self) -> tuple[int, int, int]:
        """Where the findings, edits and import requests stand, for `undo`."""
        return len(self.findings), self.edits, len(self.imports)

    def undo(self, mark: tuple[int, int, int]) -> None:
        """Forget what the passes since `mark` reported, where their tree gives way to
        another (a stand-in was rewritten: the text is parsed as it is instead)."""
        found, edits, imports = mark
        del self.findings[found:], self.imports[imports:]
        self.edits = edits

    def transform(
        self,
        module: cst.Module,
        rules: Sequence[type[PythonRule]],
        line_offset: int,
        walrus: bool = True,
        code: str | None = None,
        line_map: list[int] | None = None,
        cold: Mapping[type[PythonRule], set[int]] | None = None,
        starts: Callable[[], StartLines] | None = None,
        depth: int | None = None,
    ) -> cst.Module:
        """Run each rule over `module` in turn (`code`: its text, when the caller has it;
        `line_map`: the original line of each of its lines, when earlier passes moved them;
        `cold`: for a `local` rule, the ids of the statements it is not walked into;
        `starts`: where `module`'s statements start, see `PassCache.know_starts`;
        `depth`: with `starts`, how many stand-in classes hold the region's statements, so
        that after an edit the new tree's starts are read off a stdlib parse of its code)."""
        shared = PassCache(walrus)
        if code is not None:
            shared.know_code(module, code)
        if starts is not None:
            shared.know_starts(module, starts)
        for rule_class in rules:
            ctx = RuleContext(
                path=self.path,
                target=self.target,
                options=self.options,
                bindings=self.bindings,
                suppressions=self.suppressions,
                line_offset=line_offset,
                line_map=line_map,
                facts_of=functools.partial(self.facts.get, rule_class.code),
                project=self.project,
                shared=shared,
                cold=cold.get(rule_class, frozenset()) if cold else frozenset(),
            )
            new_module = _pass(module, rule_class, ctx)
            edits = ctx.edits
            if edits:
                # Keep reporting original line numbers after a pass that added lines.
                code = module_code(module) if code is None else code
                # The statements the pass left as they were keep their code.
                texts = shared.statement_texts(module, split_lines(code))
                new_code = module_code(new_module, texts)
                if new_code.count("\n") != code.count("\n"):
                    line_map = remap_lines(code, new_code, line_map)
                code = new_code
                module = new_module
                shared.know_code(module, code)
                if starts is not None and depth is not None:
                    shared.know_starts(module, functools.partial(_starts_of, module, code, depth))
            # A pass that reported no edit made none (rules edit only through edit() and
            # record()): the next rule gets the same tree, and its cached positions.
            self.findings.extend(ctx.findings)
            self.edits += edits
            self.imports.extend(ctx.imports)
        self.code = code
        return module


def _starts_of(
    module: cst.Module, code: str, depth: int, tree: ast.Module | None = None
) -> StartLines:
    """Where the statements of a tree the passes walk start (`statement_starts`): a whole
    module's, or a region's that a pass edited; read off a stdlib parse of its code
    (`code`; its statements inside `depth` stand-in classes), so that positions come from
    their statements' code generation (`tree`: the stdlib parse of a whole module's
    `code`, where the caller has it). Empty (the whole tree's code generation then
    serves) where the code does not parse so."""
    statements = tuple(tree.body) if tree is not None else inner_statements(code, depth)
    if statements is None:
        return {}
    return statement_starts(region_spans(module, statements, depth, split_lines(code)), 0)


def _pass(module: cst.Module, rule_class: type[PythonRule], ctx: RuleContext) -> cst.Module:
    """One rule's pass over `module`. It is walked first without building a new tree
    (`cst_walk.walk_pass`), which is cheaper, and most passes change nothing; at its first
    edit (`WouldEdit`) it starts again, with a fresh rule and findings, on a walk that
    builds the edited tree (`cst_walk.transform`: LibCST's calls and tree, rebuilding
    only the nodes above an edit). A pass that reports no edit makes none (rules edit only
    through `edit()` and `record()`), so the two walks give it the same findings."""
    skips = rule_class.walk_skips()
    ctx.begin_pass(module)
    ctx.read_only = True
    try:
        cst_walk.walk_pass(module, rule_class(ctx), rule_class.field_hooks, skips)
        return module
    except WouldEdit:
        pass
    finally:
        ctx.read_only = False
    ctx.findings.clear()
    ctx.imports.clear()
    ctx.begin_pass(module)
    found: cst.Module = cst_walk.transform(module, rule_class(ctx), rule_class.field_hooks, skips)
    return found


def remap_lines(old: str, new: str, line_map: Sequence[int] | None) -> list[int]:
    """For each line of `new`, the original line it comes from (inserted lines: the next)."""
    old_lines = old.splitlines()
    new_lines = new.splitlines()
    previous = list(line_map) if line_map is not None else list(range(1, len(old_lines) + 1))
    last = previous[-1] if previous else 1
    mapped: list[int] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for j in range(j1, j2):
            if tag == "equal":
                i = i1 + (j - j1)
            elif tag == "replace":
                i = min(i1 + (j - j1), i2 - 1)
            else:
                i = i1
            mapped.append(previous[i] if i < len(previous) else last)
    return mapped


# Line breaks `str.splitlines` splits on besides \n, \r\n and \r (`remap_lines` counts
# lines as it does).
_OTHER_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _region_line_map(
    text: str, new_text: str, changes: Sequence[tuple[int, int, list[str]]]
) -> list[int] | None:
    """`remap_lines(text, new_text)`, where the region passes made `new_text` of `text` by
    `changes` ((first, last, new lines) of each region whose text changed, in order),
    diffing only inside those regions: the lines between them stay as they were. None
    where the line counts agree (no map is needed)."""
    lines = split_lines(text)
    if sum(len(new) - (last - first + 1) for first, last, new in changes) == 0:
        return None
    if _OTHER_BREAKS.search(text) or _OTHER_BREAKS.search(new_text):
        return remap_lines(text, new_text, None)
    mapped: list[int] = []
    line = 1
    for first, last, new in changes:
        mapped.extend(range(line, first))
        # A line inserted at the region's end comes from the line after it, as in a diff
        # of the whole texts.
        after = [*range(first, last + 1), min(last + 1, len(lines))]
        mapped.extend(remap_lines("".join(lines[first - 1 : last]), "".join(new), after))
        line = last + 1
    mapped.extend(range(line, len(lines) + 1))
    return mapped


def _apply_imports(module: cst.Module, requests: Sequence[ImportRequest]) -> cst.Module:
    # Added as LibCST's AddImportsVisitor adds them, without importing it (`added_imports`):
    # libcst.codemod imports libcst.matchers, 0.17 s of start-up. Dropping an import, or a
    # request `added` is not written for, takes the visitor.
    from migrator.engine.added_imports import added

    made = added(module, requests)
    if made is not None:
        return made
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor

    context = CodemodContext()
    for request in dict.fromkeys(requests):
        if request.remove:
            RemoveImportsVisitor.remove_unused_import(
                context, request.module, request.name, request.asname
            )
        else:
            AddImportsVisitor.add_needed_import(
                context, request.module, request.name, request.asname
            )
    module = AddImportsVisitor(context).transform_module(module)
    if any(request.remove for request in requests):
        module = RemoveImportsVisitor(context).transform_module(module)
    return module


def migrate_python(
    text: str,
    path: str,
    rules: Sequence[type[PythonRule]],
    target: Target,
    options: RuleOptions,
    *,
    full: bool = False,
    inherited: ModuleBindings = EMPTY,
    project: ProjectView = EMPTY_PROJECT,
    aliases: Mapping[str, str] | None = None,
    matched: bool = False,
    found: Occurrences | None = None,
) -> Outcome:
    """Run `rules` over one file's text. Raises SourceError when it cannot be parsed.

    `inherited` holds names bound before this text runs (earlier notebook cells); `project`
    is the run's project view, which rules read as `ctx.project`; `aliases` maps retired
    codes to their successors, for `# migrate: ignore[...]` comments that name one;
    `matched`: the caller kept only rules whose trigger admits `path` and matches `text`
    or is forced (the engine's pre-filter), so their tokens are not searched again;
    `found`: where the rules' literals occur in `text` (`Finder.scan`), when the caller
    has it (made here otherwise).
    """
    aliases = aliases or {}
    # The fast path maps a pattern's match to the line it starts on, and a match of a
    # `^` or `.` pattern in a file whose lines end in a lone "\r" starts lines earlier
    # (`has_lone_cr`): an edit in a function was lost. Such a file takes the full path.
    full = full or has_lone_cr(text)
    if not matched:
        rules = [rule for rule in rules if rule.trigger.admits(path)]
    view = FileView(path, text, options, project, target)
    forced = {rule for rule in rules if rule.trigger.forced(view)}
    if not full and (found is None or found.text is not text):
        found = finder(literals_of(rules)).scan(text)
    if not full and not matched:
        # A later notebook cell may meet a rule's needs through an earlier cell's imports
        # (`import lightning as L` there, `L.Trainer(accelerator="gpu")` here).
        needs = not inherited.names
        rules = [
            rule
            for rule in rules
            if rule in forced
            or rule.trigger.matches(text, found, needs=needs)
            or _uses_inherited_alias(rule, inherited, text)
        ]
        if not rules:
            return _untouched(text, path, aliases)
    tree = parse_ast(text)
    if not full:
        view = replace(view, tree=tree)
        passes = _gates(view)
        # A gate judges this text; names an earlier notebook cell imported bring it back.
        rules = [
            rule
            for rule in rules
            if rule in forced or passes(rule) or _uses_inherited_alias(rule, inherited, text)
        ]
    suppressions = python_suppressions(text).follow(aliases)
    outcome = Outcome(text, suppressions.aliased(path))
    if suppressions.skips_file():
        suppressions.skip_file()
        outcome.unused_suppressions = suppressions.unused(path)
        return outcome
    bindings = chain(inherited, module_bindings(tree))
    # What a rule learns from the whole file's ast, the same for a region as for the module.
    facts = _Facts(tree, text, rules)
    run = _Run(path, target, options, bindings, suppressions, facts, project)
    early, late = _phases(rules)
    if full:
        new_text = _whole(text, rules, run)
    elif not late:
        new_text = _by_region(text, tree, rules, run, view, found=found)
        if run.imports:
            # The rules have run; only the import block is left to write.
            new_text = _with_imports(new_text, run.imports)
    else:
        changes: list[tuple[int, int, list[str]]] = []
        new_text = _by_region(text, tree, early, run, view, changes, found) if early else text
        line_map = _region_line_map(text, new_text, changes) if changes else None
        # The stand-ins are read off the stdlib tree: the file's own while no region
        # changed; after changes, its tables moved by them where that is sure.
        tables: bool | ast.Module | _Moved = tree
        if changes:
            tables = _Moved(tree, split_lines(text), changes)
        new_text = _whole(new_text, late, run, original=text, tables=tables, line_map=line_map)
    outcome.text = new_text
    outcome.findings = settled([*outcome.findings, *run.findings])
    outcome.unused_suppressions = suppressions.unused(path)
    return outcome


def _gates(view: FileView) -> Callable[[type[PythonRule]], bool]:
    """`rule.trigger.passes(view)`, each gate asked once: rules built on another share its
    gate (NPU090 NPU030's, which walks the file's tree: 0.15 CPU s of torch's run twice)."""
    answers: dict[int, bool] = {}

    def passes(rule: type[PythonRule]) -> bool:
        gate = rule.trigger.gate
        if gate is None:
            return True
        # By identity: the rules hold their gates while the file is judged.
        known = answers.get(id(gate))
        if known is None:
            known = answers[id(gate)] = rule.trigger.passes(view)
        return known

    return passes


class _Facts(Mapping[str, object]):
    """What each rule's `facts` read of the whole file's ast, read the first time the rule
    is asked about (most rules whose tokens a large file holds never become active in one
    of its regions, and some facts walk the whole tree)."""

    def __init__(self, tree: ast.Module, text: str, rules: Sequence[type[PythonRule]]) -> None:
        self._tree = tree
        self._text = text
        self._triggers = {rule.code: rule.trigger for rule in rules}
        self._found: dict[str, object] = {}

    def __getitem__(self, code: str) -> object:
        if code not in self._found:
            self._found[code] = self._triggers[code].file_facts(self._tree, self._text)
        return self._found[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._triggers)

    def __len__(self) -> int:
        return len(self._triggers)


def _phases(
    rules: Sequence[type[PythonRule]],
) -> tuple[list[type[PythonRule]], list[type[PythonRule]]]:
    """The rules that run by region, and those that run after them on one whole parse.

    Rules run in their order (priority, code). Those before the first whole-module rule
    run by region; from that rule on, on one whole parse of what they left. A rule that
    only reports (`FixAvailability.NEVER`) changes no text, so while the rules from the
    first whole-module rule on only report, the ones among them that work by statement
    still run by region (NPU091-NPU093 after NPU082 and NPU090): every rule still sees the
    text it would have seen, and the whole parse serves only the whole-module rules and
    the rules from the first one that edits.
    """
    first_whole = next((i for i, rule in enumerate(rules) if rule.trigger.whole_module), None)
    if first_whole is None:
        return list(rules), []
    early: list[type[PythonRule]] = list(rules[:first_whole])
    late: list[type[PythonRule]] = []
    for index in range(first_whole, len(rules)):
        rule = rules[index]
        if rule.fix_availability is not FixAvailability.NEVER:
            late.extend(rules[index:])
            break
        (late if rule.trigger.whole_module else early).append(rule)
    return early, late


def _uses_inherited_alias(rule: type[PythonRule], inherited: ModuleBindings, text: str) -> bool:
    """`ac("cuda")` in a cell after the cell that did `from torch import autocast as ac`."""
    if not inherited.names:
        return False
    aliases = alias_tokens(rule, inherited)
    return bool(aliases) and compile_parts(aliases).search(text) is not None


def _untouched(text: str, path: str, aliases: Mapping[str, str]) -> Outcome:
    """No rule can act here; its suppressions are still reported as unused, as the full
    path reports them (reading comments needs only the tokenizer, not a parse)."""
    outcome = Outcome(text)
    if MARKER in text:
        suppressions = python_suppressions(text).follow(aliases)
        outcome.findings = suppressions.aliased(path)
        if suppressions.skips_file():
            suppressions.skip_file()
        outcome.unused_suppressions = suppressions.unused(path)
    return outcome


def _whole(
    text: str,
    rules: Sequence[type[PythonRule]],
    run: _Run,
    original: str | None = None,
    tables: bool | ast.Module | _Moved = False,
    line_map: list[int] | None = None,
) -> str:
    """`rules` over the whole module; `original`: the file's text before earlier passes
    (by region) made `text`, whose lines the findings report (`line_map`: the original
    line of each of `text`'s, when the caller knows them). With `tables` (the fast
    path; or the stdlib tree of `text`, when the caller has it; or `_Moved`, the tree
    of `original` and the regions' changes that made `text`), a large module whose rules
    all skip plain data (`Trigger.skips_data`) is parsed with a stand-in for each large
    table (`_stand_ins`), put back afterwards."""
    if original is not None and line_map is None and original.count("\n") != text.count("\n"):
        line_map = remap_lines(original, text, None)
    tree = tables if isinstance(tables, ast.Module) else None
    moved = tables if isinstance(tables, _Moved) else None
    parts = _stand_ins(text, rules, run.target, tree, moved) if tables else None
    if parts is not None:
        skeleton, stand_ins = parts
        mark = run.mark()
        code = _whole_pass(skeleton, rules, run, original, line_map)
        put_back = restored(code, stand_ins)
        if put_back is not None and not any(r.remove for r in run.imports):
            return put_back
        # A stand-in was changed or an import is to be dropped (which needs every use of
        # its name, tables and definitions included): the plain parse decides. The
        # skeleton's pass applies every request of the file, the regions' rules' too
        # (NPU021 drops an import before the whole-module rules run).
        run.undo(mark)
    return _whole_pass(text, rules, run, original, line_map, tree)


def _whole_pass(
    code: str,
    rules: Sequence[type[PythonRule]],
    run: _Run,
    original: str | None,
    line_map: list[int] | None,
    tree: ast.Module | None = None,
) -> str:
    """`_whole` on `code`, the text or a skeleton of it with the same lines (`tree`: the
    stdlib parse of `code`, where the caller has it)."""
    module = parse_cst(code)
    source = code if original is None else original
    # A finding's position comes from its statement's code generation, with the statements'
    # starts read off a stdlib parse of `code` (`tree`, or one made when a position is
    # first asked for): on a large entry script, generating the whole module's positions
    # cost more than both.
    module = run.transform(
        module, rules, 0, ":=" in source, code, line_map,
        starts=functools.partial(_starts_of, module, code, 0, tree), depth=0,
    )  # fmt: skip
    if run.imports:
        return module_code(_apply_imports(module, run.imports))
    # The passes' code: the text itself where none edited it (LibCST's code generation
    # gives back the text it parsed).
    return run.code if run.code is not None else module_code(module)


# A module this long is parsed for its whole-module rules with stand-ins for its tables
# of at least this many characters (`_stand_ins`).
_LARGE_MODULE = 32_768
_LARGE_TABLE = 4_096
_STAND_IN = "__migrate_table_{}__"


class _Moved(NamedTuple):
    """The stdlib tree of a file and its lines, and the changes (first, last, new lines;
    in order) the per-region passes made to them."""

    tree: ast.Module
    lines: list[str]
    changes: list[tuple[int, int, list[str]]]


def _moved_tables(moved: _Moved, words: Sequence[str]) -> list[tuple[int, int]] | None:
    """`data_assignments` of the changed text, read off the original's tree: its tables,
    moved by the lines the changes before each added. None (the changed text is then
    parsed) where a change may have made or unmade a table: it lies in a top-level
    assignment as long as a table, its new lines parsed alone hold one (a change that
    is not a class member's and is that long), or its old or new last line ends in a
    backslash (which glues the next statement to it, `logical_groups`).

    The top-level statements outside the changes keep their lines; a class whose member
    changed stays a class (the engine refuses an edit of a region's class line)."""
    tree, lines, changes = moved
    groups = logical_groups(tree.body, lines)
    starts = [group[0] for group in groups]
    for first, last, new in changes:
        if any(
            part and part[-1].rstrip("\r\n").endswith("\\")
            for part in (lines[first - 1 : last], new)
        ):
            return None
        index = max(bisect.bisect_right(starts, first) - 1, 0)
        inside_class = False
        while index < len(groups) and groups[index][0] <= last:
            start, end, members = groups[index]
            if end >= first:
                kind = members[0]
                if isinstance(kind, (ast.Assign, ast.AnnAssign)) and (
                    sum(len(line) for line in lines[start - 1 : end]) >= _LARGE_TABLE
                ):
                    return None
                # A member of a class: the class stays one (its line is not the region's).
                inside_class = isinstance(kind, ast.ClassDef) and start < first and last <= end
            index += 1
        if not inside_class and sum(map(len, new)) >= _LARGE_TABLE and _holds_table(new, words):
            return None
    found = []
    shift = 0
    pending = iter(changes)
    change = next(pending, None)
    for first, last in data_assignments(tree, lines, words, _LARGE_TABLE):
        while change is not None and change[1] < first:
            shift += len(change[2]) - (change[1] - change[0] + 1)
            change = next(pending, None)
        found.append((first + shift, last + shift))
    return found


def _holds_table(lines: Sequence[str], words: Sequence[str]) -> bool:
    """Whether the module-level statements on `lines` hold a large table (or do not parse
    alone)."""
    try:
        tree = parse_ast("".join(lines))
    except SourceError:
        return True
    return bool(data_assignments(tree, lines, words, _LARGE_TABLE))


def _stand_ins(
    text: str,
    rules: Sequence[type[PythonRule]],
    target: Target,
    tree: ast.Module | None,
    moved: _Moved | None = None,
) -> tuple[str, list[tuple[str, str]]] | None:
    """A skeleton of a large module for rules that skip plain data: each top-level
    assignment of a large table (`statement_spans.data_assignments`; a string naming the
    source or target device keeps it) becomes `__migrate_table_<n>__ = b"..."`, a bytes
    string over the same lines (each line's number on it), so positions stay; and where
    every rule names its quiet definitions (`Trigger.quiet_definitions`), each top-level
    function or class they all name becomes `def <name>(): ...` (`class <name>: ...`),
    its body such a string where it spans more lines. With
    (stand-in, the lines it replaced) for each (`tree`: the stdlib parse of `text`, if
    the caller has one; `moved`: the original's, and the changes that made `text`).
    None where there is none, or a rule reads tables."""
    if len(text) < _LARGE_MODULE or not all(rule.trigger.skips_data for rule in rules):
        return None
    if _STAND_IN.format("").rstrip("_") in text:
        return None
    lines = split_lines(text)
    words = (target.source_device_type, target.device_type)
    quiet = [rule.trigger.quiet_definitions for rule in rules]
    # Each definition's stand-in: (first line, last line, its one line).
    definitions: list[tuple[int, int, str]] | None = None
    spans = None
    if tree is None and moved is not None:
        spans = _moved_tables(moved, words)
        if spans is not None and None not in quiet:
            # Where the changes may have touched what the rules read, no definition is
            # stood in: parsing the changed text for them costs more than they spare.
            definitions = _moved_definitions(moved, target, quiet) or []
    if spans is None:
        if tree is None:
            try:
                tree = parse_ast(text)
            except SourceError:
                return None
        spans = data_assignments(tree, lines, words, _LARGE_TABLE)
    if definitions is None and tree is not None and None not in quiet:
        definitions = _quiet_definitions(tree.body, lines, target, quiet)
    # (first line, last line, the stand-in's definition: None for a table's assignment).
    found: list[tuple[int, int, str | None]] = [(first, last, None) for first, last in spans]
    found = sorted([*found, *(definitions or ())])
    if not found:
        return None
    stand_ins: list[tuple[str, str]] = []
    for number, (first, last, definition) in enumerate(reversed(found)):
        replaced = "".join(lines[first - 1 : last])
        ending = replaced[len(replaced.rstrip("\r\n")) :]
        name = _STAND_IN.format(number)
        if last == first:
            stand_in = f"{definition}  # {name}" if definition is not None else f"{name} = ()"
        else:
            # One bytes string over the other lines, each holding its number: lines that
            # differ, as a diff of the module before and after a pass needs (`remap_lines`
            # is slow on many equal lines), in one token (LibCST builds nodes for each
            # comment line, which a comment on each line cost).
            inside = "".join(f"\n{line}" for line in range(first + 1, last + 1))
            if definition is not None:
                stand_in = f'{definition.removesuffix("...")}b"""{inside}"""  # {name}'
            else:
                stand_in = f'{name} = b"""{inside}"""'
        stand_in += ending
        stand_ins.append((stand_in, replaced))
        lines[first - 1 : last] = [stand_in]
    return "".join(lines), stand_ins


def _moved_definitions(
    moved: _Moved, target: Target, quiet: Sequence[QuietDefinitions | None]
) -> list[tuple[int, int, str]] | None:
    """`_quiet_definitions` of the changed text, read off the original's tree: those no
    change lies in, moved by the lines the changes before each added. None (the changed
    text is then parsed) where a change lies in a top-level statement that is not a
    function or class (an import the rules read may have changed)."""
    tree, lines, changes = moved
    groups = logical_groups(tree.body, lines)
    starts = [group[0] for group in groups]
    for first, last, _ in changes:
        index = max(bisect.bisect_right(starts, first) - 1, 0)
        while index < len(groups) and groups[index][0] <= last:
            _, end, members = groups[index]
            if end >= first and not isinstance(members[0], _DEFINITIONS) and _imports(members):
                return None
            index += 1
    found = []
    for first, last, stand_in in _quiet_definitions(tree.body, lines, target, quiet):
        if any(start <= last and end >= first for start, end, _ in changes):
            continue
        shift = sum(len(new) - (end - start + 1) for start, end, new in changes if end < first)
        found.append((first + shift, last + shift, stand_in))
    return found


def _imports(statements: Sequence[ast.stmt]) -> bool:
    """Whether an import statement is one of `statements` or inside one."""
    return any(
        isinstance(node, (ast.Import, ast.ImportFrom))
        for statement in statements
        if isinstance(statement, (ast.Import, ast.ImportFrom)) or hasattr(statement, "body")
        for node in ast.walk(statement)
    )


def _quiet_definitions(
    body: Sequence[ast.stmt],
    lines: Sequence[str],
    target: Target,
    quiet: Sequence[QuietDefinitions | None],
) -> list[tuple[int, int, str]]:
    """The top-level definitions every rule's `quiet_definitions` names, that may be stood
    in for alone on their lines (`skeletons.may_stand_in`): (first line, last line, the
    one-line definition of the same name that stands in)."""
    named: frozenset[int] | None = None
    for found in quiet:
        assert found is not None
        named = found(body, lines, target) if named is None else named & found(body, lines, target)
    found_spans = []
    for index in sorted(named or ()):
        statement = body[index]
        first, last = first_line(statement), last_line(statement)
        if not may_stand_in(first, last, [statement], lines):
            continue
        assert isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        stand_in = f"class {statement.name}: ..."
        if not isinstance(statement, ast.ClassDef):
            stand_in = f"def {statement.name}(): ..."
        found_spans.append((first, last, stand_in))
    return found_spans


def _with_imports(text: str, requests: Sequence[ImportRequest]) -> str:
    """`text` with `requests` applied, as `_whole` applies them after the rules' passes.

    Adding an import reads and rewrites only the module's head: the first statement (a
    docstring, say), the import statements right after it, and the statement that follows
    them, whose leading blank line it may add (LibCST's AddImportsVisitor). So only that
    head is parsed, with a stand-in for the statement after the imports; dropping an
    import needs to know every use of a name, so that parses the whole module.
    """
    if any(request.remove for request in requests):
        return _apply_imports(parse_cst(text), requests).code
    lines = split_lines(text)
    groups = logical_groups(parse_ast(text).body, lines)
    after = 1
    while after < len(groups) and _is_import_line(groups[after][2]):
        after += 1
    if after >= len(groups):
        return _apply_imports(parse_cst(text), requests).code
    cut = groups[after][0]
    head = "".join(lines[: cut - 1])
    stub = "pass" + (lines[cut - 2][len(lines[cut - 2].rstrip("\r\n")) :] or "\n")
    code = _apply_imports(parse_cst(head + stub), requests).code
    if not code.endswith(stub):
        return _apply_imports(parse_cst(text), requests).code
    return code[: len(code) - len(stub)] + "".join(lines[cut - 1 :])


def _is_import_line(members: Sequence[ast.stmt]) -> bool:
    """One import statement alone on its logical line (LibCST: a SimpleStatementLine whose
    only statement is an Import or ImportFrom)."""
    return len(members) == 1 and isinstance(members[0], (ast.Import, ast.ImportFrom))


def _literal_starts(
    parts: Sequence[str], found: Occurrences, held: Mapping[str, str]
) -> list[int] | None:
    """Where in the text a match of one of a rule's `parts` (regexes) may be: the starts of
    the literal each part's matches hold (`part_literal`, or for a declared pattern its
    literal, `held`), in order; None where a part has no such literal (a match could be
    anywhere). A region none of these starts lies in holds no match."""
    starts: list[int] = []
    for part in parts:
        literal = part_literal(part) or held.get(part, "")
        if not literal:
            return None
        starts.extend(found.starts(literal))
    starts.sort()
    return starts


def _may_occur(starts: Sequence[int] | None, span: tuple[int, int]) -> bool:
    return starts is None or any_between(starts, *span)


def literals_of(rules: Iterable[type[PythonRule]]) -> frozenset[str]:
    """Every literal the rules' triggers ask about (`Trigger.literals`)."""
    return frozenset(literal for rule in rules for literal in rule.trigger.literals())


def _active(
    rules: Sequence[type[PythonRule]],
    patterns: Mapping[type[PythonRule], RulePattern],
    body: str,
    region: Region,
    view: FileView,
    bindings: ModuleBindings,
    facts: Mapping[str, object],
    code: Callable[[], str],
    offset: int,
    inner: ModuleBindings,
) -> list[type[PythonRule]]:
    """The rules that may act in a region: a token in its text (for `words` rules, in its
    code, `code()`: `body` with its string literals blanked), also through a name the
    region's own imports bind (`inner`, `_own_imports`), and its statement gate and names
    gate pass (`offset`: where `body` starts in the file's text)."""
    names: frozenset[str] | None = None
    callees: frozenset[str] | None = None

    def qualified() -> frozenset[str]:
        nonlocal names
        if names is None:
            names = qualified_names(region.statements, bindings.names)
        return names

    def called() -> frozenset[str]:
        nonlocal callees
        if callees is None:
            callees = qualified_names(region.statements, bindings.names, called=True)
        return callees

    def spelt_inside(rule: type[PythonRule], text: str) -> bool:
        """Whether `text` spells one of the rule's tokens through a name an import inside
        the region binds (`inner`: `from torch import cuda` in a function, then
        `cuda.is_available()`), which the file's aliases (`patterns`) do not hold: `_hot`
        counts those lines, and the full path's pass resolves the name."""
        aliases = own_alias_tokens(rule, inner)
        return bool(aliases) and compile_parts(aliases).search(text) is not None

    active = []
    for rule in rules:
        if not patterns[rule].search(body, offset) and not spelt_inside(rule, body):
            continue
        if region.statements and not any(
            rule.trigger.in_statement(node, view.target) for node in region.statements
        ):
            continue
        if region.statements and not rule.trigger.names_pass(
            called if rule.trigger.names_called else qualified, view
        ):
            continue
        # The code without strings is made last of the cheap checks (a regex pass over the
        # region that most names gates make unnecessary).
        if (
            rule.trigger.words
            and not patterns[rule].search(code(), offset)
            and not spelt_inside(rule, code())
        ):
            continue
        if (
            region.statements
            and rule.trigger.region is not None
            and not rule.trigger.region_passes(
                RegionView(
                    region.statements,
                    bindings.names,
                    view.target,
                    functools.partial(facts.get, rule.code),
                    body,
                    qualified,
                )
            )
        ):
            continue
        active.append(rule)
    return active


def _spans(
    module: cst.Module, region: Region, lines: Sequence[str], active: Sequence[type[PythonRule]]
) -> tuple[Spanned, ...]:
    """The lines of the region's LibCST statements, when a `local` rule runs there (an
    element's stand-in has no such statements: its rules are walked through it all)."""
    if region.trailer or not region.statements or not any(rule.trigger.local for rule in active):
        return ()
    return region_spans(module, region.statements, region.header.count("\n"), lines)


def _starts(
    module: cst.Module,
    region: Region,
    lines: Sequence[str],
    spans: Sequence[Spanned],
    offset: int,
) -> StartLines:
    """Where the region's statements start in its parse (`spans`, when `_spans` made them;
    `offset`: the file line before the parse's first line)."""
    found = spans or region_spans(module, region.statements, region.header.count("\n"), lines)
    return statement_starts(found, offset)


def _hot(
    region: Region,
    active: Sequence[type[PythonRule]],
    patterns: Mapping[type[PythonRule], RulePattern],
    body: str,
    lines: Sequence[str],
    code: Callable[[], str],
    offset: int,
    inner: ModuleBindings,
) -> dict[type[PythonRule], list[int]]:
    """For each `local` rule, the lines of the region one of its tokens is on: the
    region's own test (`_active`) on each line (a line counts when a match starts on it;
    for a `words` rule, in the code with its string literals blanked; `offset`: where
    `body` starts in the file's text).

    An import inside the region binds names its tokens may not spell (`from torch import
    cuda` in a function, then `cuda.synchronize()`): what such a name looks like counts
    as a token too, as `alias_tokens` makes a module-level import's names count."""
    # Where each of the body's lines starts in it (`body` is the file's lines first..last).
    starts = [0, *itertools.accumulate(map(len, lines[region.first - 1 : region.last]))]
    found: dict[type[PythonRule], list[int]] = {}
    for rule in active:
        if not rule.trigger.local:
            continue
        text = code() if rule.trigger.words else body
        matches = patterns[rule].starts(text, offset)
        aliases = own_alias_tokens(rule, inner)
        if aliases:
            matches += [match.start() for match in compile_parts(aliases).finditer(text)]
        first = region.first - 1
        found[rule] = sorted({first + bisect.bisect_right(starts, at) for at in matches})
    return found


def _own_imports(region: Region, body: str) -> ModuleBindings:
    """What the imports inside the region's statements bind (`from torch import cuda` in a
    function), EMPTY where they import nothing (`body`: the region's text; without the
    word "import" it imports nothing, and its statements are not walked). A statement that
    is an import line alone is left out: its names are bound where it stands, the
    module's (which `alias_tokens` of the file follows) or a class's."""
    if "import" not in body:
        return EMPTY
    nested: dict[str, tuple[str | None, ...]] = {}
    for node in region.statements:
        if not _is_import_line([node]):
            for local, dotted in summary(node).imports:
                nested[local] = (*nested.get(local, ()), dotted)
    return ModuleBindings(nested) if nested else EMPTY


def _cold(
    spans: Sequence[Spanned], hot: Mapping[type[PythonRule], list[int]]
) -> dict[type[PythonRule], set[int]]:
    """For each `local` rule, the statements of the region none of its tokens is on
    (`hot`, from `_hot`); none where the region has no spans (`_spans`)."""
    if not spans:
        return {}
    return {rule: cold(spans, lines) for rule, lines in hot.items()}


# A region whose rules are all `local` is parsed with its cold statements stood in for
# (`migrator.analysis.skeletons`) where they make at least this many characters: below,
# the stdlib parse of the skeleton and the stand-ins cost more than LibCST saves.
_SKELETON_LEAST = 256


def _skeleton(
    region: Region,
    body: str,
    active: Sequence[type[PythonRule]],
    hot: Mapping[type[PythonRule], list[int]],
    lines: Sequence[str],
    names: Mapping[str, Sequence[str | None]],
    target: Target,
) -> Skeleton | None:
    """The region's text with the statements no active rule has a token in stood in for,
    where every active rule is `local` and that pays; inside an `if` too where its chain
    is decided by its tests alone (`device_regions.plain_chain`; `names`: the module's
    bindings, to which the region's own imports are added)."""
    if (
        region.trailer
        or region.line_map
        or not region.statements
        or len(body) < 2 * _SKELETON_LEAST
        or not all(rule.trigger.local and not rule.trigger.reads_around for rule in active)
    ):
        return None
    opens = functools.partial(
        plain_chain,
        names=with_own_imports(names, region.statements),
        target=target,
        commented=says_only_on_source(body),
    )
    every = sorted({line for found in hot.values() for line in found})
    return cold_skeleton(
        region.statements,
        lines,
        (region.first, region.last),
        body,
        every,
        _SKELETON_LEAST,
        opens,
    )


class _Blanked:
    """`without_strings(body)`, made the first time it is asked for (a `functools.cache`
    around a partial cost more to build, once a region, than most regions' blanking)."""

    __slots__ = ("_body", "_code")

    def __init__(self, body: str) -> None:
        self._body = body
        self._code: str | None = None

    def __call__(self) -> str:
        if self._code is None:
            self._code = without_strings(self._body)
        return self._code


class _StandIn(Exception):
    """A rule's pass rewrote the stand-in around a display's element."""


class _RegionWork(NamedTuple):
    """A region's text (`body`), its text without strings (`code`, made once when
    asked), where it starts in the file, the rules that may act in it and what its own
    imports bind (`_own_imports`)."""

    body: str
    code: Callable[[], str]
    start: int
    active: list[type[PythonRule]]
    inner: ModuleBindings


def _by_region(
    text: str,
    tree: ast.Module,
    rules: Sequence[type[PythonRule]],
    run: _Run,
    view: FileView,
    changes: list[tuple[int, int, list[str]]] | None = None,
    found: Occurrences | None = None,
) -> str:
    """`rules` by region; `view`: the file as the triggers' checks saw it (its names gates
    read it too); `changes`, when given, gets (first, last, new lines) of each region
    whose text changed, in order; `found`: where the rules' literals occur in `text`."""
    lines = split_lines(text)
    if found is None or found.text is not text:
        found = finder(literals_of(rules)).scan(text)
    aliases = {rule: alias_tokens(rule, run.bindings) for rule in rules}
    parts = {rule: (*_own_parts(rule), *aliases[rule]) for rule in rules}
    patterns = {rule: RulePattern(rule, aliases[rule], found) for rule in rules}
    every = [part for held in parts.values() for part in held]
    # Where each line starts in the text, and where each rule's literals occur.
    offsets = [0, *itertools.accumulate(map(len, lines))]
    named_only = functools.partial(_named_only, lines, offsets, list(patterns.values()))
    lined = {regex: literal for rule in rules for regex, literal in line_literals(rule).items()}
    hot = hot_lines_of(text, lines, every, found, lined)
    regions = find_regions(tree, hot, lines, named_only)
    candidates = {
        rule: _literal_starts(held, found, {p.regex: p.literal for p in rule.trigger.patterns})
        for rule, held in parts.items()
    }
    replaced: list[tuple[Region, list[str]]] = []

    def prepare(region: Region, rules: Sequence[type[PythonRule]]) -> _RegionWork:
        """The region's text, its text without strings (made once if a `words` rule
        asks), where it lies in the file and the rules that may act in it."""
        body = "".join(lines[region.first - 1 : region.last])
        code = _Blanked(body)
        span = (offsets[region.first - 1], offsets[region.last])
        # A rule none of whose literals is in the region may still be spelt through a name
        # an import inside it binds (`from torch import cuda` in a function): `_active`
        # looks for those.
        inner = _own_imports(region, body)
        active = _active(
            [
                rule
                for rule in rules
                if _may_occur(candidates[rule], span) or own_alias_tokens(rule, inner)
            ],
            patterns, body, region, view, run.bindings, run.facts, code, span[0], inner,
        )  # fmt: skip
        return _RegionWork(body, code, span[0], active, inner)

    def migrate(region: Region, rules: Sequence[type[PythonRule]]) -> list[str] | None:
        """The rules that may act in a region over it, element by element where it may
        be split: its new lines, or None where it stands as it was."""
        prepared = prepare(region, rules)
        active = prepared.active
        if not active:
            return None
        if region.elements and all(rule.trigger.elements for rule in active):
            mark = run.mark()
            found: list[tuple[Region, list[str]]] = []
            try:
                for element in region.elements:
                    inside = prepare(element, active)
                    new = whole(element, inside) if inside.active else None
                    if new is not None:
                        found.append((element, new))
                replaced.extend(found)
                return None
            except _StandIn:
                # A pass rewrote an element's stand-in: the statement goes whole.
                run.undo(mark)
        return whole(region, prepared)

    def whole(region: Region, prepared: _RegionWork) -> list[str] | None:
        """`prepared.active` over the region parsed whole: its new lines, or None where
        it stands as it was (raises `_StandIn` where an element's stand-in was
        rewritten). Where its rules are all `local`, its cold statements are first stood
        in for (`_skeleton`); the region is parsed as it is where a pass rewrites a
        stand-in."""
        body, code, start, active, inner = prepared
        # Where the local rules' tokens are (an element's stand-in has no statements of
        # its own to skip: `_spans`).
        hot = {}
        if not region.trailer:
            hot = _hot(region, active, patterns, body, lines, code, start, inner)
        skeleton = _skeleton(region, body, active, hot, lines, run.bindings.names, view.target)
        if skeleton is not None:
            mark = run.mark()
            try:
                return walked(region, body, active, hot, skeleton)
            except (_StandIn, SourceError):
                # A stand-in was rewritten, or the skeleton did not parse as the text did.
                run.undo(mark)
        return walked(region, body, active, hot, None)

    def walked(
        region: Region,
        body: str,
        active: Sequence[type[PythonRule]],
        hot: Mapping[type[PythonRule], list[int]],
        skeleton: Skeleton | None,
    ) -> list[str] | None:
        """`whole` on the region's text (`body`), or on its `skeleton` (raises `_StandIn`
        where a pass rewrote a stand-in)."""
        header, trailer = region.header, region.trailer
        depth = header.count("\n")
        offset = region.first - 1 - depth
        text = body if skeleton is None else skeleton.body
        module = parse_cst(header + text + trailer, offset)
        if skeleton is not None:
            region = replace(region, statements=skeleton.statements)
        # Held until the passes are done: the statements' ids stay theirs.
        spans = _spans(module, region, lines, active)
        cold_ones = _cold(spans, hot)
        edits_before = run.edits
        if region.line_map:
            # An element's stand-in: its lines are the statement's around the element's,
            # and the positions come from its own (small) code generation.
            transformed = run.transform(
                module, active, 0, ":=" in body, header + body + trailer,
                line_map=list(region.line_map),
            )  # fmt: skip
        else:
            transformed = run.transform(
                module,
                active,
                offset,
                ":=" in body,
                header + text,
                cold=cold_ones,
                starts=functools.partial(_starts, module, region, lines, spans, offset),
                depth=depth,
            )
        if run.edits == edits_before:
            # Rules edit only through edit()/record(), which report: no report, no edit,
            # so the region's text stands and generating its code again is skipped.
            return None
        # The passes generated the edited tree's code already.
        new_code = module_code(transformed) if run.code is None else run.code
        if skeleton is not None:
            found = restored(new_code, skeleton.stand_ins)
            if found is None:
                raise _StandIn
            new_code = found
        if not new_code.startswith(header) or not new_code.endswith(trailer):
            if trailer:
                raise _StandIn
            raise SourceError("a rule rewrote a method's class line", region.first)
        new_body = new_code[len(header) : len(new_code) - len(trailer)]
        return split_lines(new_body) if new_body != body else None

    # No function here calls itself: a closure that held itself would be a cycle through
    # all the above (the file's text, stdlib tree and views), which only the cyclic
    # collector frees, after every young collection till then had walked it.
    for region in regions:
        new_lines = migrate(region, rules)
        if new_lines is not None:
            replaced.append((region, new_lines))
    if changes is not None:
        changes.extend((region.first, region.last, new_lines) for region, new_lines in replaced)
    for region, new_lines in reversed(replaced):
        lines[region.first - 1 : region.last] = new_lines
    # The statement gates' walks and summaries are kept per statement; none outlives its
    # file.
    summary.cache_clear()
    statement_nodes.cache_clear()
    return "".join(lines)
