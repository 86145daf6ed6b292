"""Which lines stdlib-`ast` statements span, and which of them a pattern occurs on.

The fast path (`migrator.engine.python`) and rules' cheap pre-checks both ask "which statements
hold a line where this text occurs?" before paying for LibCST; they share these answers.
"""

from __future__ import annotations

import ast
import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from migrator.analysis.bindings import dotted_parts, import_bindings

if TYPE_CHECKING:
    from migrator.analysis.occurrences import Occurrences


# The fields of a node type that never hold a node: names, constants' values, flags, and
# the load/store context (`ast.Load()`, one shared object every `Name` points to).
_NOT_NODES: dict[type[ast.AST], tuple[str, ...]] = {
    ast.Name: ("id", "ctx"),
    ast.Attribute: ("attr", "ctx"),
    ast.Subscript: ("ctx",),
    ast.Starred: ("ctx",),
    ast.List: ("ctx",),
    ast.Tuple: ("ctx",),
    ast.Constant: ("value", "kind"),
    ast.keyword: ("arg",),
    ast.arg: ("arg", "type_comment"),
    ast.alias: ("name", "asname"),
    ast.FunctionDef: ("name", "type_comment"),
    ast.AsyncFunctionDef: ("name", "type_comment"),
    ast.ClassDef: ("name",),
    ast.ImportFrom: ("module", "level"),
    ast.ExceptHandler: ("name",),
    ast.comprehension: ("is_async",),
    ast.FormattedValue: ("conversion",),
    ast.AnnAssign: ("simple",),
    ast.Assign: ("type_comment",),
    ast.For: ("type_comment",),
    ast.AsyncFor: ("type_comment",),
    ast.With: ("type_comment",),
    ast.AsyncWith: ("type_comment",),
}
# Each node type's fields that may hold a node, filled in as types are met.
_NODE_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


def indentation(line: str) -> str:
    """The spaces and tabs `line` starts with."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def walk(node: ast.AST) -> list[ast.AST]:
    """`list(ast.walk(node))` without the load/store contexts (`ast.expr_context`, which
    no check reads), in the same order, in 40% less time: one loop, without the two
    generators per node of `ast.iter_child_nodes` and `ast.iter_fields`, reading only
    the fields that may hold a node (a third of the nodes `ast.walk` gives are the
    contexts of names and attributes)."""
    return _walk(node, _NODE_FIELDS, ())


@functools.lru_cache(maxsize=256)
def statement_nodes(statement: ast.stmt) -> tuple[ast.AST, ...]:
    """`walk(statement)`, kept for the last few statements asked about (the engine clears
    it with `summary` after each file): a region's gates each walked its statements
    (NPU010's string check, NPU060's and NPU062's region gates, the summary), and one walk
    now serves them all."""
    return tuple(walk(statement))


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """`list(ast.iter_child_nodes(node))` without the load/store contexts, in the same
    order, read through `walk`'s table of the fields that may hold a node (a walk that
    prunes as it goes cannot use `walk`; `ast.iter_child_nodes` is a generator over
    another, `ast.iter_fields`)."""
    kind = type(node)
    fields = _NODE_FIELDS.get(kind)
    if fields is None:
        skip = _NOT_NODES.get(kind, ())
        fields = _NODE_FIELDS[kind] = tuple(f for f in kind._fields if f not in skip)
    found: list[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def identifiers(found: ast.AST) -> tuple[str, ...]:
    """The identifiers of a stdlib node that LibCST spells as `Name` nodes, which the
    decisions read (and resolve) as names: names, attributes, keywords, parameters,
    definitions, imported and declared names."""
    if isinstance(found, ast.Name):
        return (found.id,)
    if isinstance(found, ast.Attribute):
        return (found.attr,)
    if isinstance(found, (ast.keyword, ast.arg)):
        return (found.arg,) if found.arg else ()
    if isinstance(found, ast.alias):
        return (*found.name.split("."), *((found.asname,) if found.asname else ()))
    if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (found.name,)
    if isinstance(found, ast.ImportFrom):
        return tuple(found.module.split(".")) if found.module else ()
    if isinstance(found, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return (found.name,) if found.name else ()
    if isinstance(found, (ast.Global, ast.Nonlocal)):
        return tuple(found.names)
    if isinstance(found, ast.MatchMapping):
        return (found.rest,) if found.rest else ()
    if isinstance(found, ast.MatchClass):
        return tuple(found.kwd_attrs)
    return ()


# The fields of each node type `walk_outside_bodies` reads: `walk`'s, without the body
# of a function or class.
_OUTSIDE_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def walk_outside_bodies(node: ast.AST) -> list[ast.AST]:
    """`walk(node)` without the bodies of the functions and classes in it: what runs where
    they are defined (their decorators, defaults, annotations and bases) is kept."""
    return _walk(node, _OUTSIDE_FIELDS, ("body",))


def _walk(
    node: ast.AST, fields_of: dict[type[ast.AST], tuple[str, ...]], scoped: tuple[str, ...]
) -> list[ast.AST]:
    """`walk`, reading each node type's fields from `fields_of` (filled in as types are
    met), less `scoped` for a function or class."""
    found = [node]
    append = found.append
    index = 0
    while index < len(found):
        current = found[index]
        index += 1
        kind = type(current)
        fields = fields_of.get(kind)
        if fields is None:
            skip = {*_NOT_NODES.get(kind, ()), *(scoped if issubclass(kind, _SCOPES) else ())}
            fields = fields_of[kind] = tuple(f for f in kind._fields if f not in skip)
        for name in fields:
            value = getattr(current, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        append(item)
            elif isinstance(value, ast.AST):
                append(value)
    return found


# The last tree `nodes_of` was asked about, and its nodes by type (one file at a time).
_BY_KIND: tuple[ast.AST, dict[type[ast.AST], list[ast.AST]]] | None = None


def nodes_of(tree: ast.AST, kinds: tuple[type[ast.AST], ...]) -> list[ast.AST]:
    """The nodes of `tree` of the given types, each type's in `ast.walk` order. The file
    facts of several rules read the whole tree: one walk serves them all (it is kept for
    the last tree asked about)."""
    global _BY_KIND
    if _BY_KIND is None or _BY_KIND[0] is not tree:
        buckets: dict[type[ast.AST], list[ast.AST]] = {}
        for node in walk(tree):
            buckets.setdefault(type(node), []).append(node)
        _BY_KIND = (tree, buckets)
    found = _BY_KIND[1]
    return [node for kind in kinds for node in found.get(kind, ())]


def blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists of a compound statement's blocks, in the order they are written:
    its body, a `try`'s handlers, a `match`'s cases, an `else` (an `elif` is the `if` in
    one) and a `finally`; none of a simple statement."""
    body: list[ast.stmt] | None = getattr(statement, "body", None)
    if body:
        yield body
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body
    for name in ("orelse", "finalbody"):
        block: list[ast.stmt] | None = getattr(statement, name, None)
        if block:
            yield block


def nested_statements(statements: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement of `statements` and of the blocks inside them (`blocks`), outer
    first. No expression is entered (`nodes_of` walks every node): a class or a function
    is only ever a statement, so this finds each one for a fraction of a walk."""
    stack = list(statements)[::-1]
    while stack:
        statement = stack.pop()
        yield statement
        stack.extend(reversed([inner for block in blocks(statement) for inner in block]))


def first_line(node: ast.stmt) -> int:
    """The statement's first line, its decorators included."""
    decorators: list[ast.expr] | None = getattr(node, "decorator_list", None)
    if not decorators:
        # Most statements: no list and generator made for a `min` of one line.
        return node.lineno
    return min(node.lineno, *(d.lineno for d in decorators))


def last_line(node: ast.stmt) -> int:
    return node.end_lineno or node.lineno


def logical_groups(
    statements: Sequence[ast.stmt], lines: Sequence[str]
) -> list[tuple[int, int, list[ast.stmt]]]:
    """Statements glued together because they share a logical line (`a = 1; b = 2`, or
    `a = 1; \\` with `b = 2` on the next line), as LibCST
    keeps them in one `SimpleStatementLine` (the engine's regions never start mid-line)."""
    groups: list[tuple[int, int, list[ast.stmt]]] = []
    count = len(lines) + 1
    for stmt in statements:
        # `last_line`, written out: this runs for every statement of every region.
        first, last = first_line(stmt), stmt.end_lineno or stmt.lineno
        continued = 1 < first <= count and lines[first - 2].rstrip("\r\n").endswith("\\")
        if groups and (first <= groups[-1][1] or continued):
            start, end, members = groups[-1]
            groups[-1] = (start, max(end, last), [*members, stmt])
        else:
            groups.append((first, last, [stmt]))
    return groups


def _line_starts(lines: Sequence[str]) -> list[int]:
    """Where each of `lines` starts in their text."""
    starts = list(itertools.accumulate(map(len, lines), initial=0))
    starts.pop()
    return starts


def hot_lines(text: str, lines: Sequence[str], pattern: re.Pattern[str]) -> list[int]:
    """Line numbers (sorted) whose text matches, leaving out full-line comments: the plain
    search that `hot_lines_of` answers as (its tests compare the two)."""
    starts = _line_starts(lines)
    hot: set[int] = set()
    for match in pattern.finditer(text):
        number = bisect.bisect_right(starts, match.start())
        if number not in hot and not lines[number - 1].lstrip().startswith("#"):
            hot.add(number)
    return sorted(hot)


def hot_lines_of(
    text: str,
    lines: Sequence[str],
    parts: Iterable[str],
    found: Occurrences | None = None,
    one_line: Mapping[str, str] | None = None,
) -> list[int]:
    """`hot_lines` for the alternation of `parts` (regexes), found part by part.

    Python's `re` tries every alternative at every position of an alternation, and a
    leading `\\b` also defeats its literal-prefix search, so one pattern of a few hundred
    `\\bname\\b` parts scans a large file hundreds of times over (seconds for torch's
    largest files). Each part alone is searched for its literal head first (`str.find`
    speed), without the `\\b`, whose condition is then checked on the character before the
    match; after a match the search goes on from the next line. The same lines (a
    match that runs over several lines may add the lines it overlaps, never fewer).
    `found`: where the rules' literals occur in `text` (`Finder.scan`), which says
    without a search that a part's literal is absent, and where a whole-word part's name
    occurs, so that such a part needs no search at all (`_word_lines`). `one_line`: the
    parts whose every match lies on one line that holds a literal (`TokenPattern.one_line`),
    each with that literal: such a part is tried only on those lines.
    """
    scanned = found if found is not None and found.text is text else None
    has = scanned.has if scanned is not None else text.__contains__
    starts = _line_starts(lines)
    hot: set[int] = set()
    unique = list(dict.fromkeys(alt for part in parts for alt in alternatives(part)))
    # Whole-word parts (`\bname\b`, a words rule's identifiers) without `found`: with many
    # of them, the file's words are read once and each absent name costs a set lookup.
    many = scanned is None and sum(1 for part in unique if whole_word(part)) >= _MANY_WORDS
    words: set[str] | None = None
    for part in unique:
        # A lone "\r" ends a line of `lines` inside one of `re`'s: such text is searched whole.
        if one_line and part in one_line and not has_lone_cr(text):
            search = LineSearch(one_line[part], part)
            occurs = scanned.starts(search.literal) if scanned is not None else None
            _one_line(text, lines, starts, search, occurs, hot)
            continue
        literal, regex, boundary = _searcher(part)
        if literal and not has(literal):
            continue
        name = whole_word(part)
        if scanned is not None and name:
            _word_lines(text, lines, starts, scanned.starts(name), len(name), hot)
            continue
        if scanned is not None and literal:
            _literal_lines(text, lines, starts, scanned.starts(literal), regex, boundary, hot)
            continue
        name = name if many else ""
        if name:
            if words is None:
                words = set(_WORD.findall(text))
            if name not in words:
                continue
        position = 0
        while True:
            match = regex.search(text, position)
            if match is None:
                break
            start = match.start()
            if boundary and start and is_word(text[start - 1]):
                position = start + 1
                continue
            number = bisect.bisect_right(starts, start)
            if number not in hot and not lines[number - 1].lstrip().startswith("#"):
                hot.add(number)
            # Only the line counts: go on from the next one.
            following = starts[number] if number < len(starts) else len(text)
            position = max(match.end(), following, start + 1)
    return sorted(hot)


_LONE_CR = re.compile(r"\r(?!\n)")


def has_lone_cr(text: str) -> bool:
    """Whether a "\r" not followed by "\n" ends a line of `text` (a classic Mac file):
    Python and LibCST end a line there, `re`'s `^`, `$` and `.` do not."""
    return "\r" in text and _LONE_CR.search(text) is not None


class LineSearch:
    """`re.Pattern.search` and `finditer` for a one-line pattern (`TokenPattern.one_line`):
    the regex is tried on each line ("\\n" to "\\n", as `re` reads lines) that holds its
    literal, which gives the matches a search of the whole text gives."""

    def __init__(self, literal: str, regex: str) -> None:
        self.literal = literal
        self.regex = re.compile(regex)

    def segments(self, text: str, occurs: Sequence[int] | None = None) -> Iterator[tuple[int, int]]:
        """(start, end) of each line of `text` that holds the literal, in order (`occurs`:
        the literal's sorted starts, where the caller has them; else found here)."""
        found = iter(occurs) if occurs is not None else None
        at = text.find(self.literal) if found is None else next(found, -1)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end == -1 else end
            yield start, end
            if found is None:
                at = text.find(self.literal, end)
            else:
                at = next((later for later in found if later >= end), -1)

    def search(self, text: str) -> re.Match[str] | None:
        for start, end in self.segments(text):
            match = self.regex.search(text, start, end)
            if match is not None:
                return match
        return None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        for start, end in self.segments(text):
            yield from self.regex.finditer(text, start, end)


def _one_line(
    text: str,
    lines: Sequence[str],
    starts: Sequence[int],
    search: LineSearch,
    occurs: Sequence[int] | None,
    hot: set[int],
) -> None:
    """Add to `hot` the lines where a one-line pattern (`search`) matches, trying it once
    on each line that holds its literal (`occurs`: the literal's sorted starts, if known)."""
    for begin, end in search.segments(text, occurs):
        found = search.regex.search(text, begin, end)
        if found is not None:
            number = bisect.bisect_right(starts, found.start())
            if not lines[number - 1].lstrip().startswith("#"):
                hot.add(number)


def _literal_lines(
    text: str,
    lines: Sequence[str],
    starts: Sequence[int],
    occurs: Sequence[int],
    regex: re.Pattern[str],
    boundary: bool,
    hot: set[int],
) -> None:
    """Add to `hot` the lines `hot_lines_of`'s search for `regex` finds, where every match
    begins with a literal occurring at `occurs` (sorted starts, from the file's scan): the
    regex is tried at each occurrence instead of at every position of the text (`re`
    searches a regex led by a lookbehind that way); `boundary`: a match must follow a
    non-word character."""
    index = 0
    while index < len(occurs):
        start = occurs[index]
        match = regex.match(text, start)
        if match is None or (boundary and start and is_word(text[start - 1])):
            index += 1
            continue
        number = bisect.bisect_right(starts, start)
        if number not in hot and not lines[number - 1].lstrip().startswith("#"):
            hot.add(number)
        following = starts[number] if number < len(starts) else len(text)
        index = bisect.bisect_left(occurs, max(match.end(), following, start + 1), index + 1)


def _word_lines(
    text: str,
    lines: Sequence[str],
    starts: Sequence[int],
    occurs: Sequence[int],
    length: int,
    hot: set[int],
) -> None:
    """Add to `hot` the lines where a word of `length` characters, occurring at `occurs`
    (sorted starts, from the file's scan), stands as a whole word, as `hot_lines_of`'s
    search for `\\bNAME\\b` finds them: an occurrence counts where the characters on
    both sides are not word characters; after one counts, the next is looked for on the
    next line."""
    index = 0
    while index < len(occurs):
        start = occurs[index]
        end = start + length
        if (start and is_word(text[start - 1])) or (end < len(text) and is_word(text[end])):
            index += 1
            continue
        number = bisect.bisect_right(starts, start)
        if number not in hot and not lines[number - 1].lstrip().startswith("#"):
            hot.add(number)
        following = starts[number] if number < len(starts) else len(text)
        index = bisect.bisect_left(occurs, following, index + 1)


def is_word(char: str) -> bool:
    # What `re`'s `\\w` matches in a str pattern.
    return char.isalnum() or char == "_"


# One character a regex matches as itself: a word character, an escaped one that is not
# a word character (`\.`, `\(`, `\ `: `\b` and `\d` are classes), or punctuation
# with no meaning in a regex (`=`, `:`, quotes; not a plain space, which a verbose
# pattern skips).
_LITERAL_UNIT = re.compile(r"\w|\\[^\w]|[^\w\s\\.^$*+?{}\[\]|()]")
# A run of them, matched at once: one match a unit, the rules' 314 token regexes (some
# 4,000 units) took 3 ms of a run's start, 2 ms so.
_LITERAL_RUN = re.compile(rf"(?:{_LITERAL_UNIT.pattern})*")
_WHOLE_WORD = re.compile(r"\\b(\w+)\\b")
_WORD = re.compile(r"\w+")
# From this many whole-word parts on, `hot_lines_of` reads the file's words first.
_MANY_WORDS = 24


@functools.lru_cache(maxsize=4096)
def whole_word(part: str) -> str:
    """NAME for a part `\\bNAME\\b` of word characters only (it matches where NAME is a
    whole word), else ""."""
    found = _WHOLE_WORD.fullmatch(part)
    return found.group(1) if found else ""


@functools.lru_cache(maxsize=4096)
def _searcher(part: str) -> tuple[str, re.Pattern[str], bool]:
    """(a literal every match begins with, the regex to search, whether a match must
    follow a non-word character): a part `\\bNAME...` with no alternation is searched
    as `NAME...`, its `\\b` checked by hand (NAME begins with a word character, so the
    boundary holds exactly when the character before is not one)."""
    boundary = part.startswith("\\b") and "|" not in part and is_word(part[2:3])
    regex = part[2:] if boundary else part
    return _literal_head(regex), re.compile(regex), boundary


@functools.lru_cache(maxsize=4096)
def part_literal(part: str) -> str:
    """A literal every match of the regex `part` holds: its literal head (`_literal_head`)
    after a leading `\\b`; "" where none is known."""
    return _literal_head(part[2:] if part.startswith("\\b") else part)


def literal_led(part: str) -> tuple[str, str] | None:
    """(`part_literal(part)`, `part` from that literal on: without a leading `\\b` or
    lookbehind), or None where `part` has no literal head. Python's `re` searches a regex
    that begins with a literal by scanning for the literal, and tries one led by `\\b` or
    a lookbehind at every position of the text."""
    head = part_literal(part)
    if not head:
        return None
    rest = part[2:] if part.startswith("\\b") else part
    if rest.startswith(("(?<=", "(?<!")):
        close = _group_end(rest, 0)
        if close is None:
            return None
        rest = rest[close:]
    return head, rest


def _literal_head(regex: str) -> str:
    """The text every match of `regex` begins with: its leading characters that match
    themselves (`_LITERAL_UNIT`; after a leading lookbehind, which matches no text), less
    the last one where a quantifier may drop it (`ab?`). `def\\ main\\(` gives
    "def main(", not "def": the scan kept 79,000 occurrences of "def" in torch's source
    (and 33,000 of "dtype", of `dtype=float`) for patterns that match a few dozen times."""
    if "|" in regex:
        return ""
    if regex.startswith(("(?<=", "(?<!")):
        close = _group_end(regex, 0)
        if close is None:
            return ""
        regex = regex[close:]
    run = _LITERAL_RUN.match(regex)
    assert run is not None  # it matches the empty string
    # `findall` splits the run as matching unit after unit from its start does.
    units = _LITERAL_UNIT.findall(run.group())
    if units and regex[run.end() : run.end() + 1] in ("?", "*", "{"):
        units.pop()
    return "".join(unit[-1] for unit in units)


def _outside_classes(regex: str, start: int) -> Iterator[tuple[int, str]]:
    """Each character of `regex` from `start` on, with its index, that is neither escaped
    nor inside a character class (the two places where "(", ")" and "|" are literal)."""
    index = start
    while index < len(regex):
        char = regex[index]
        if char == "\\":
            index += 2
        elif char == "[":
            index = _class_end(regex, index)
        else:
            yield index, char
            index += 1


def _group_end(regex: str, start: int) -> int | None:
    """The index after the group that opens at `regex[start]` ("("), or None."""
    depth = 0
    for index, char in _outside_classes(regex, start):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _class_end(regex: str, start: int) -> int:
    """The index after the character class that opens at `regex[start]` ("[")."""
    index = start + 1
    if regex[index : index + 1] == "^":
        index += 1
    if regex[index : index + 1] == "]":
        index += 1
    while index < len(regex):
        char = regex[index]
        if char == "\\":
            index += 2
            continue
        if char == "]":
            return index + 1
        index += 1
    return index


_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")


@functools.lru_cache(maxsize=4096)
def alternatives(part: str) -> tuple[str, ...]:
    """The top-level alternatives of the regex `part` (`a|b(c|d)`: `a` and `b(c|d)`): a
    text matches `part` where it matches one of them. `(part,)` where `part` sets a global
    flag (`(?i)`), which would hold for the first alternative alone."""
    if "|" not in part or _GLOBAL_FLAGS.search(part):
        return (part,)
    found: list[str] = []
    depth = begin = 0
    for index, char in _outside_classes(part, 0):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            found.append(part[begin:index])
            begin = index + 1
    found.append(part[begin:])
    return tuple(found) if all(found) else (part,)


def statements_on(statements: Iterable[ast.stmt], hot: Sequence[int]) -> list[ast.stmt]:
    """The statements that span at least one of the (sorted) `hot` lines."""
    found: list[ast.stmt] = []
    for statement in statements:
        index = bisect.bisect_left(hot, first_line(statement))
        if index < len(hot) and hot[index] <= last_line(statement):
            found.append(statement)
    return found


def statements_spelling(
    tree: ast.Module, text: str, lines: Sequence[str], parts: Iterable[str]
) -> list[ast.stmt]:
    """The top-level statements of `tree` (the stdlib parse of `text`, whose lines are
    `lines`) with a line of code that matches one of `parts` (regexes, searched part by
    part as `hot_lines_of` searches them): a fact about a few names needs only those."""
    return statements_on(tree.body, hot_lines_of(text, lines, parts))


@dataclass(frozen=True)
class Summary:
    """What a statement holds, for rules' cheap per-statement checks: node kinds, keyword
    argument names, names of the functions it defines, whether anything is decorated, every
    dotted name it spells (`chains`: each `Name` and `Attribute` chain, prefixes included),
    the chains it calls or decorates with (`called`: each call's callee and each bare
    decorator, `f` of `f(x)` and `@f`, that is such a chain; no prefixes), and what its
    import statements bind (`imports`: local name, dotted name) and name (`imported`:
    `import a.b` names "a.b"; `from a import b` names "a" and "a.b")."""

    kinds: frozenset[type[ast.AST]]
    keywords: frozenset[str]
    functions: frozenset[str]
    decorated: bool
    chains: frozenset[tuple[str, ...]] = frozenset()
    imports: tuple[tuple[str, str], ...] = ()
    imported: frozenset[str] = frozenset()
    called: frozenset[tuple[str, ...]] = frozenset()


@functools.lru_cache(maxsize=256)
def summary(statement: ast.stmt) -> Summary:
    """One walk of `statement` serves every rule's check (kept for the last few seen)."""
    kinds: set[type[ast.AST]] = set()
    keywords: set[str] = set()
    functions: set[str] = set()
    chains: set[tuple[str, ...]] = set()
    imports: list[tuple[str, str]] = []
    imported: set[str] = set()
    # The callees and bare decorators, read off the chains once the walk has them all.
    callees: list[ast.expr] = []
    decorated = False
    for node in statement_nodes(statement):
        kind = type(node)
        kinds.add(kind)
        if kind is ast.Name:
            assert isinstance(node, ast.Name)
            chains.add((node.id,))
        elif kind is ast.Attribute:
            assert isinstance(node, ast.Attribute)
            parts = dotted_parts(node)
            if parts is not None:
                chains.add(tuple(parts))
        elif kind is ast.Call:
            assert isinstance(node, ast.Call)
            callees.append(node.func)
        elif kind is ast.keyword:
            assert isinstance(node, ast.keyword)
            if node.arg is not None:
                keywords.add(node.arg)
        elif kind in _DEFINITIONS:
            assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            decorated = decorated or bool(node.decorator_list)
            callees.extend(node.decorator_list)
            if kind is not ast.ClassDef:
                functions.add(node.name)
        elif kind is ast.Import or kind is ast.ImportFrom:
            assert isinstance(node, (ast.Import, ast.ImportFrom))
            bound = list(import_bindings(node))
            imports.extend(bound)
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            else:
                imported.add("." * node.level + (node.module or ""))
                imported.update(dotted for _, dotted in bound)
    called = (dotted_parts(callee) for callee in callees)
    return Summary(
        frozenset(kinds),
        frozenset(keywords),
        frozenset(functions),
        decorated,
        frozenset(chains),
        tuple(imports),
        frozenset(imported),
        frozenset(tuple(parts) for parts in called if parts is not None),
    )


def qualified_names(
    statements: Iterable[ast.stmt],
    names: Mapping[str, Sequence[str | None]],
    called: bool = False,
) -> frozenset[str]:
    """Every qualified name a rule's `qualname()` can give for a node of `statements`, and
    every name their imports name: each dotted name with its head resolved through the
    imports that may bind it (`names`: the module's bindings, as
    `ModuleBindings.names`; and the statements' own imports, functions' included). A
    superset: a head bound differently in two places gets both, and shadowing is ignored.
    With `called`, of the dotted names only those of callees and bare decorators
    (`Summary.called`), with every name the imports name."""
    found: set[str] = set()
    for statement in statements:
        held = summary(statement)
        local: dict[str, set[str]] = {}
        for name, dotted in held.imports:
            local.setdefault(name, set()).add(dotted)
        found |= held.imported
        for chain in held.called if called else held.chains:
            head = chain[0]
            bound = names.get(head)
            mine = local.get(head) if local else None
            # Most heads are local variables, `self` and the like, which no import binds.
            if not bound and not mine:
                continue
            rest = chain[1:]
            for value in {*(mine or ()), *(value for value in bound or () if value)}:
                found.add(".".join((value, *rest)) if rest else value)
    return frozenset(found)


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def calls_or_imports(statement: ast.stmt, target: object = None) -> bool:
    """Whether the statement holds a call, an import or a decorator: all a rule that
    reports imports, calls and decorators of an API can act on."""
    found = summary(statement)
    return found.decorated or bool(found.kinds & {ast.Call, ast.Import, ast.ImportFrom})


def passes_keyword(*names: str) -> Callable[[ast.stmt, object], bool]:
    """A check: the statement passes one of `names` as a keyword (`name=`) to some call."""
    wanted = frozenset(names)

    def check(statement: ast.stmt, target: object = None) -> bool:
        return not wanted.isdisjoint(summary(statement).keywords)

    return check


def defines_function(name: str) -> Callable[[ast.stmt, object], bool]:
    """A check: the statement is or holds a `def name`."""

    def check(statement: ast.stmt, target: object = None) -> bool:
        return name in summary(statement).functions

    return check
