"""What a rule matches, declared as one value: its `Trigger`.

A rule says *what* it can act on; how the engine skips files, statements and passes is the
engine's business. The trigger holds

- `tokens` and `patterns`: text without which the rule cannot act (plain substrings, and
  `TokenPattern` regexes for what a substring cannot pin down); a dotted token also matches
  its last name imported from its module (`from torch import compile as jit`), and the
  engine follows the file's import aliases (`import torch as th` makes `th.cuda` a match);
  `through`, where given, names what an alias must lead to for the rule to care: a name
  an import binds to a dotted name counts only where that name is one of them, a module
  above one, or something under one (NPU051 reports `triton.jit`, and `tl` of `import
  triton.language as tl` leads to none of its `uses`: a kernel's `tl.load(...)` lines are
  no lines it can act on);
  `words=True` says the rule acts only on names (imports, attributes, calls, keywords), so
  inside a file a token counts only as a whole word in code: `cudnn` is found in
  `torch.backends.cudnn.benchmark`, not in `torch._cudnn_rnn` nor in a string literal
  (`{'name': 'allow_tf32'}`; an f-string's text counts as code); a word boundary is
  checked only at a token's ends that are word characters;
- `needs`: `TokenPattern`s of which at least one must occur in a file besides a token or
  pattern, where the text that brings a rule in is far commoner than the text it acts on:
  NPU078's `import torch` pattern is in nearly every file of a torch project, but the
  rule acts only where a module it checks is named (`cuda`, `amp`, ...); NPU080's
  operator names occur in docstrings and definitions, but it reports only calls, spelt
  `.op(` or through an import of `op`. A file that holds none is not parsed for the rule
  (`matches` says no); inside a file that does, the tokens and patterns decide as before;
- `unit`: what one pass of the rule sees: one top-level statement or method
  (`Unit.STATEMENT`, the default), the whole module (`Unit.MODULE`), or a text file
  (`Unit.FILE`, every `TextRule`);
- `files` (text rules: globs on the file name or the relative path) and `paths` (globs on
  the relative path the rule is limited to); `notebooks=False` keeps a Python rule off
  notebook cells;
- optional cheap checks, each a plain function: `gate(view)`, a necessary condition on the
  file (its text, and for Python its stdlib tree) checked after a token matched;
  `statement_gate(statement, target)`, a necessary condition on one region's stdlib ast;
  `names(qualified, view)`, a necessary condition on the qualified names a region holds
  (`migrator.analysis.ast_lines.qualified_names`: every dotted name with its head resolved
  through the imports that may bind it, and every name its imports name), for a rule
  that acts only on nodes whose `qualname()` (or import) is one of a few
  (`names_called=True`: of the dotted names only those the region calls or decorates with,
  `f` of `f(x)` and `@f`, for a rule that acts only at such calls, decorators and
  imports: torch's `overrides.py` spells `torch.hypot` as the key of a table that calls
  nothing);
  `region(view)`, a necessary condition on one region (`RegionView`: its stdlib
  statements, the module's import bindings, the target and the rule's `facts`), for a
  rule whose decision can be foreseen from the stdlib tree once names resolve (NPU062
  needs a float64 dtype and a device, NPU077 an `if`/`assert` whose test names a device);
  `always(view)`, a sufficient condition that makes the rule run on a file its `files` and
  `paths` admit even without a token (an `--entry` file; a rule that reports a missing
  construct); and `facts(tree, text)`, what the rule reads of the whole file's stdlib tree
  and text (the text lets it walk only the statements that spell a name), the
  same on both engine paths;
- `local=True`: inside a region, the rule is not walked into a statement none of whose
  lines holds one of its tokens (`migrator.analysis.statement_spans`), for a rule that
  edits and reports only at nodes of a statement that holds a token, deciding from that
  statement, the headers around it and name resolution alone (no state gathered from
  other statements: a rule that follows values through assignments is not local); where
  every rule that may act in a region is local, the fast path parses the region with a
  stand-in for each statement none of them has a token in (`migrator.analysis.skeletons`;
  the statements of an `if` chain it keeps whole, whose bodies `device_regions` reads);
- `reads_around=True`: a `local` rule that still reads, at a function or class it walks,
  the statements inside it that hold none of its tokens (NPU003 follows values through
  the whole function, NPU092 reads a `forward` whole): the fast path parses the regions
  it acts in without stand-ins;
- `elements=True`: the rule edits and reports at nodes inside one element of a large
  list, tuple, set or dict display assigned at module level (torch's `op_db = [OpInfo(...),
  ...]`, 11,000 lines in one statement), deciding from that element, the assignment's
  target and annotation, the module's import bindings and the rule's `facts`: nothing
  read off the display as a whole or off its other elements. When every rule that may
  act in such a statement says so, the fast path parses and walks only the elements that
  hold a token, each alone between the statement's own lines before and after its
  elements (`migrator.engine.python._element_regions`);
- `skips_data=True` (a whole-module rule): the rule acts on nothing in a top-level
  assignment of plain data (literals, names and attributes, with no call and no string
  naming the source or the target device; `statement_spans.data_assignments`), so the
  fast path may parse a large module with a one-name stand-in for each large table;
- `quiet_definitions(body, lines, target)` (a whole-module rule): of the module's
  top-level statements (`body`; `lines`: the file's lines), the indices of the function
  and class definitions in which the rule's pass collects, reads and changes nothing
  (what it gathers elsewhere, a name's binding aside); the fast path may parse a large
  module with a one-line definition of the same name standing in for each, when every
  whole-module rule that runs there names it.

A gate must never say False where the rule would act: `tests/test_fast_path.py` runs the
fast path (which reads the trigger) against the full path (which ignores it).
"""

from __future__ import annotations

import ast
import enum
import fnmatch
import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from migrator.core.options import RuleOptions
from migrator.core.project import EMPTY as EMPTY_PROJECT
from migrator.core.project import ProjectView
from migrator.core.target import NPU, Target

if TYPE_CHECKING:
    from migrator.analysis.ast_lines import LineSearch
    from migrator.analysis.occurrences import Occurrences


class Unit(enum.Enum):
    """What one pass of a rule sees."""

    STATEMENT = "statement"
    MODULE = "module"
    FILE = "file"


@dataclass(frozen=True)
class TokenPattern:
    """A regex for a construct a plain token cannot pin down (`.cpu()\n.numpy()`), with a
    literal every match holds: the literal is checked first with `in`, which is far
    cheaper than searching a whole file with a regex. `one_line`: every match lies
    within one line (the one its literal is on) and needs nothing of the lines around it,
    so the regex is tried only on the lines that hold the literal (`LineSearch`): a
    pattern `re` cannot search by a literal head (`(?m:^...)`, a character class first)
    is otherwise tried at every position of the file."""

    literal: str
    regex: str
    one_line: bool = False


@dataclass(frozen=True)
class FileView:
    """One file as the trigger's checks see it. `tree` is the stdlib tree of a Python file
    once parsed (None for `always`, which runs before the parse, and for text files)."""

    path: str
    text: str
    options: RuleOptions
    project: ProjectView = EMPTY_PROJECT
    target: Target = NPU
    tree: ast.Module | None = None


Gate = Callable[[FileView], bool]
StatementGate = Callable[[ast.stmt, Target], bool]
NamesGate = Callable[[frozenset[str], FileView], bool]


@dataclass(frozen=True)
class RegionView:
    """One region as a `region` gate sees it: its stdlib statements, the module's import
    bindings (`ModuleBindings.names`: each name, the dotted names imports bind it to), the
    target, what the rule's `facts` read of the whole file (`facts_of` works them
    out when a gate first reads `facts`: most gates never do, and facts walk the whole
    file) and its source lines, comments included (`text`; None where not known, and a
    gate must then assume any comment); `qualified_of`: the statements' qualified names
    as the engine made them for the names gates, read through `qualified`."""

    statements: Sequence[ast.stmt]
    names: Mapping[str, Sequence[str | None]]
    target: Target = NPU
    facts_of: Callable[[], object] | None = None
    text: str | None = None
    qualified_of: Callable[[], frozenset[str]] | None = None

    @property
    def facts(self) -> object:
        return None if self.facts_of is None else self.facts_of()

    @property
    def qualified(self) -> frozenset[str]:
        """`ast_lines.qualified_names` of the statements, the engine's where it has them
        (a gate that made them again repeated the names gates' work)."""
        if self.qualified_of is not None:
            return self.qualified_of()
        from migrator.analysis.ast_lines import qualified_names

        return qualified_names(self.statements, self.names)


RegionGate = Callable[[RegionView], bool]
Facts = Callable[[ast.Module, str], object]
QuietDefinitions = Callable[[Sequence[ast.stmt], Sequence[str], Target], frozenset[int]]


@dataclass(frozen=True)
class Trigger:
    """What a rule matches; see the module docstring."""

    tokens: tuple[str, ...] = ()
    patterns: tuple[TokenPattern, ...] = ()
    needs: tuple[TokenPattern, ...] = ()
    words: bool = False
    unit: Unit = Unit.STATEMENT
    paths: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    notebooks: bool = True
    gate: Gate | None = None
    statement_gate: StatementGate | None = None
    names: NamesGate | None = None
    names_called: bool = False
    region: RegionGate | None = None
    always: Gate | None = None
    facts: Facts | None = None
    local: bool = False
    reads_around: bool = False
    elements: bool = False
    skips_data: bool = False
    quiet_definitions: QuietDefinitions | None = None
    through: tuple[str, ...] | None = None

    @property
    def whole_module(self) -> bool:
        return self.unit is Unit.MODULE

    def admits(self, path: str) -> bool:
        """Whether `paths` allow the rule on `path` (relative to the project root)."""
        if not self.paths:
            return True
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in self.paths)

    def handles(self, path: str) -> bool:
        """For a text rule: whether `files` name this file and `paths` admit it."""
        name = path.rsplit("/", 1)[-1]
        named = files_pattern(self.files)
        return (named.match(name) is not None or named.match(path) is not None) and self.admits(
            path
        )

    def matches(self, text: str, found: Occurrences | None = None, needs: bool = True) -> bool:
        """Whether a token, a pattern or a token's from-import alias occurs in `text`, and
        one of the `needs` where there are some and `needs` says so (`found`: where the
        rules' literals occur in it, `Finder.scan(text)`, which answers "does this literal
        occur" without reading the text again)."""
        search = self._search
        scanned = found if found is not None and found.text is text else None
        has: Callable[[str], bool] = scanned.has if scanned is not None else text.__contains__
        if not self._brought(text, has, scanned):
            return False
        return not (needs and search.needs) or any(
            has(need.literal) and need.occurs(text, scanned) for need in search.needs
        )

    def may_match(self, found: Occurrences) -> bool:
        """False where `matches(found.text, found)` is sure to be False: none of the
        literals one of which every text it admits holds (`_Search.keys`) occurs. A file
        pre-filter asks this of every rule, and most answers are no (on torch's source,
        125,000 of 128,000), which the full check gave at 7 microseconds each."""
        keys = self._search.keys(found.held)
        return keys is None or found.has_one_of(keys)

    def _brought(self, text: str, has: Callable[[str], bool], scanned: Occurrences | None) -> bool:
        """Whether a token, a pattern or a token's from-import alias occurs in `text`
        (`scanned`: where the literals occur in it, when the caller has that)."""
        search = self._search
        if scanned is not None:
            if scanned.has_any(search.needed_set):
                return True
        elif search.holds_token(text):
            return True
        for pattern in search.patterns:
            if has(pattern.literal) and pattern.occurs(text, scanned):
                return True
        # Each needs its module's name in the text (its from-import spells it) first.
        if any(
            has(name) and has(module) and _imports_name(text, name, module)
            for name, module in search.from_imports
        ):
            return True
        return _spelt_through_alias(text, search.tails, has)

    @functools.cached_property
    def _search(self) -> _Search:
        """What `matches` reads of the tokens and patterns, made once per trigger (a cache
        keyed by the tokens hashed all of them on each of the run's calls, four per rule
        and file; a words rule has 142 tokens)."""
        return _Search(self.tokens, self.patterns, self.needs)

    def literals(self) -> tuple[str, ...]:
        """The literals whose every occurrence the pre-filter's scan keeps (`Finder`), for
        `matches` and the engine's region search: the tokens, the patterns' literals and
        each token regex's literal head; and of at least three characters, the needs'
        literals and their alternatives' literal heads (`matches` tries a need at the
        places the scan found, where it searched each file's text again for each: 0.5 CPU
        s of torch's run), and the names of the tokens' from-imports. Of the rest (the
        modules of those from-imports, the names of the dotted tokens' tails) `matches`
        asks only whether they occur, which `Occurrences.has` answers from the text, once
        per file: the scan kept 150,000 occurrences of "nd" (of "decord.nd.gpu") in
        torch's source that nothing read."""
        return (
            *self.tokens,
            *(pattern.literal for pattern in self.patterns),
            *_scanned_literals(self.tokens, self.words, self.needs),
        )

    def token_regexes(self) -> tuple[str, ...]:
        """A regex for each token, as a statement is searched for it (see `words`)."""
        return _token_regexes(self.tokens, self.words)

    def forced(self, view: FileView) -> bool:
        return self.always is not None and self.always(view)

    def passes(self, view: FileView) -> bool:
        return self.gate is None or self.gate(view)

    def in_statement(self, statement: ast.stmt, target: Target) -> bool:
        return self.statement_gate is None or self.statement_gate(statement, target)

    def names_pass(self, names: Callable[[], frozenset[str]], view: FileView) -> bool:
        """Whether the `names` gate admits a region (`names`: computes its qualified names)."""
        return self.names is None or self.names(names(), view)

    def region_passes(self, view: RegionView) -> bool:
        return self.region is None or self.region(view)

    def file_facts(self, tree: ast.Module, text: str) -> object:
        return None if self.facts is None else self.facts(tree, text)


# From this many tokens on, one regex finds any of them faster than `in` does one by one.
_MANY_TOKENS = 20


class _Search:
    """A trigger's tokens and patterns as `Trigger.matches` searches a text: the tokens
    that hold no other token, each pattern with its literal, each dotted token's last
    name with its module's from-import statements, the dotted tokens' module prefixes
    (`_dotted_tails`) and the `needs`, each with its literal; where there are many
    tokens, one alternation of them, compiled when a text is first searched without its
    literals' scan (`holds_token`: faster than `in` one by one; most runs never need
    it)."""

    __slots__ = (
        "_alternation", "_keys", "from_imports", "needed", "needed_set", "needs", "patterns",
        "tails",
    )  # fmt: skip

    def __init__(
        self,
        tokens: tuple[str, ...],
        patterns: tuple[TokenPattern, ...],
        needs: tuple[TokenPattern, ...] = (),
    ) -> None:
        self.needed = _needed(tokens)
        self.needed_set = frozenset(self.needed)
        self.patterns = _compiled(patterns)
        self.needs = _compiled(needs)
        self.from_imports = _from_imports(tokens)
        self.tails = _dotted_tails(tokens)
        self._alternation: re.Pattern[str] | None = None
        self._keys: dict[frozenset[str], frozenset[str] | None] = {}

    def keys(self, held: frozenset[str]) -> frozenset[str] | None:
        """Literals of `held` (a finder's) one of which occurs in every text `matches`
        admits, or None where one way to match needs none of them: each token holds a
        `needed` one, each pattern its literal, and a from-import (`_imports_name`) or an
        alias (`_spelt_through_alias`) is read only where its names occur, each of which
        holds the longest of `held` inside it, if any."""
        if held not in self._keys:
            self._keys[held] = self._keys_of(held)
        return self._keys[held]

    def _keys_of(self, held: frozenset[str]) -> frozenset[str] | None:
        keys = set(self.needed)
        keys.update(pattern.literal for pattern in self.patterns)
        for name, module in self.from_imports:
            keys.add(_inside(name, held) or _inside(module, held))
        for prefix, _rest, first in self.tails:
            keys.add(_inside(first, held) or _inside(prefix.split(".", 1)[0], held))
        return frozenset(keys) if keys <= held else None

    def holds_token(self, text: str) -> bool:
        if len(self.needed) < _MANY_TOKENS:
            return any(token in text for token in self.needed)
        if self._alternation is None:
            self._alternation = re.compile(any_of(self.needed))
        return self._alternation.search(text) is not None


def _inside(name: str, held: frozenset[str]) -> str:
    """The longest of `held` that `name` holds, the first of them ("" where none does):
    each of the name's few slices is looked up, not each of the hundreds held (a run
    makes these once per rule, and every run makes them, a one-file run too)."""
    best = ""
    for start in range(len(name) - len(best)):
        for end in range(len(name), start + len(best), -1):
            if name[start:end] in held:
                best = name[start:end]
                break
    return best


# A tree of words by their characters: "" marks a word that ends there.
_Trie = dict[str, "_Trie"]


def any_of(words: Sequence[str]) -> str:
    """A regex for any of `words`, as their escaped alternation `a|b|...` is, written as
    a tree of their shared prefixes (`lu(?:_factor)?|mode`): `re` tries the alternatives
    of a plain alternation one by one at each place it looks, so a pattern of 142
    operator names after each "." of a file (NPU080's `needs`) took 0.29 CPU s over
    torch's source, 0.06 s so. Followed by anything (a `\\b`, say), it matches at the
    same places as the plain alternation, and only there; the text it matches there may
    be a longer word of `words` (it is greedy where the alternation takes the first)."""
    tree: _Trie = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def written(node: _Trie) -> str:
        branches = [
            re.escape(char) + written(child) for char, child in sorted(node.items()) if char
        ]
        if not branches:
            return ""
        group = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        if "" not in node:
            return group
        return f"(?:{group})?" if len(branches) == 1 else f"{group}?"

    return written(tree) if tree else "(?!)"


def _needed(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """The tokens that hold no other token: `"cholesky"` finds every text `"cholesky_ex"`
    does."""
    unique = set(tokens)
    return tuple(
        sorted(token for token in unique if not any(o != token and o in token for o in unique))
    )


@functools.cache
def _token_regexes(tokens: tuple[str, ...], words: bool) -> tuple[str, ...]:
    if not words:
        return tuple(re.escape(token) for token in tokens)
    found = []
    for token in tokens:
        start = r"\b" if token[:1].isalnum() or token[:1] == "_" else ""
        end = r"\b" if token[-1:].isalnum() or token[-1:] == "_" else ""
        found.append(f"{start}{re.escape(token)}{end}")
    return tuple(found)


@functools.cache
def files_pattern(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One regex for `fnmatch.fnmatchcase` with any of `patterns` (a text rule's `files`):
    every file of a run is asked about each text rule."""
    return re.compile("|".join(fnmatch.translate(pattern) for pattern in patterns) or "(?!)")


def _compiled(patterns: tuple[TokenPattern, ...]) -> tuple[_Pattern, ...]:
    return tuple(_Pattern(pattern) for pattern in patterns)


class _Pattern:
    """A `TokenPattern` as `Trigger.matches` looks for it. Where each of its top-level
    alternatives begins with a literal (`literal_led`), the alternative is searched from
    that literal on, and its leading `\\b` or lookbehind checked with `match` at each
    place found: `re` tries a regex led by `\\b` at every position of a text (NPU078's
    `\\bamp\\b` cost 0.46 CPU s over 772 of torch's files, found in few), and scans for a
    literal head at C speed. Otherwise the regex is searched whole (a `one_line` one on the
    lines that hold its literal). Compiled when first searched: a run over one file reads
    few of the rules' patterns, and compiling them all cost it 0.03 CPU s."""

    def __init__(self, pattern: TokenPattern) -> None:
        self.literal = pattern.literal
        self._pattern = pattern

    @functools.cached_property
    def _search(self) -> tuple[re.Pattern[str] | LineSearch, _Parts | None]:
        from migrator.analysis.ast_lines import LineSearch, alternatives, literal_led

        pattern = self._pattern
        if pattern.one_line:
            return LineSearch(pattern.literal, pattern.regex), None
        regex = re.compile(pattern.regex)
        parts = alternatives(pattern.regex)
        led = [literal_led(part) for part in parts]
        if not all(led):
            return regex, None
        return regex, tuple(
            (found[0], re.compile(found[1]), None if found[1] == part else re.compile(part))
            for part, found in zip(parts, led, strict=True)
            if found is not None
        )

    @property
    def led(self) -> bool:
        """Whether it is searched from its alternatives' literals."""
        return self._search[1] is not None

    def occurs(self, text: str, scanned: Occurrences | None = None) -> bool:
        """Whether the pattern matches somewhere in `text` (`scanned`: where the literals
        occur in it, when the caller has that: an alternative led by a literal the scan
        kept is tried at each of its places, and the text is not searched again)."""
        regex, parts = self._search
        if parts is None:
            return regex.search(text) is not None
        for head, core, whole in parts:
            if scanned is not None and head in scanned.held:
                # Every match of `core` starts with `head`; `whole` holds `core` after a
                # leading `\b` or lookbehind, which `match` checks against the text before.
                anchored = whole or core
                if any(anchored.match(text, at) for at in scanned.starts(head)):
                    return True
                continue
            found = core.search(text)
            while found is not None:
                at = found.start()
                if whole is None or whole.match(text, at) is not None:
                    return True
                found = core.search(text, at + 1)
        return False


_Parts = tuple[tuple[str, re.Pattern[str], re.Pattern[str] | None], ...]


# A need's literal shorter than this is not kept by the scan ("." of NPU080's `.op`
# need is in every line).
_SCANNED_LEAST = 3


@functools.lru_cache(maxsize=1024)
def _scanned_literals(
    tokens: tuple[str, ...], words: bool, needs: tuple[TokenPattern, ...]
) -> tuple[str, ...]:
    """`Trigger.literals` past the tokens and patterns: each token regex's literal head,
    the needs' literals and heads, the tokens' from-import names (made once a run)."""
    from migrator.analysis.ast_lines import alternatives, literal_led, part_literal

    heads = [part_literal(part) for part in _token_regexes(tokens, words)]
    more: list[str] = []
    for need in needs:
        more.append(need.literal)
        more.extend(led[0] for part in alternatives(need.regex) if (led := literal_led(part)))
    more.extend(name for name, _module in _from_imports(tokens))
    return (*heads, *(literal for literal in more if len(literal) >= _SCANNED_LEAST))


def _from_imports(tokens: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """A dotted token's last name imported from its module (`from torch import compile as
    jit` for "torch.compile"): the file's text never spells the token, its aliases do.
    Each entry is (the imported name, the module: `_imports_name` reads its from-import
    statements)."""
    found = []
    for token in tokens:
        module, dot, name = token.rpartition(".")
        if dot and module and name.isidentifier():
            found.append((name, module))
    return tuple(found)


def _dotted_tails(tokens: tuple[str, ...]) -> tuple[tuple[str, str, str], ...]:
    """For each dotted token `a.b.c`, each module prefix with what follows it: ("a.b", "c",
    "c") and ("a", "b.c", "b"), the last item the first name after the prefix."""
    found = []
    for token in tokens:
        parts = token.split(".")
        if len(parts) < 2 or not all(part.isidentifier() for part in parts):
            continue
        for cut in range(1, len(parts)):
            found.append((".".join(parts[:cut]), ".".join(parts[cut:]), parts[cut]))
    return tuple(found)


# Import lines. Each pattern is led by its keyword, which `re` finds at C speed, and
# `_line_start_matches` keeps a match only where the line holds nothing before it: led by
# the line's start (`\n[ \t]*`, or `^` with re.MULTILINE, four times slower again), the
# patterns were tried at every line of the file.
_IMPORT = re.compile(r"import[ \t]+([^\n#;]+)")
_FROM_IMPORT = re.compile(r"from[ \t]+([\w.]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]+)")
_COMMENT = re.compile(r"#[^\n]*")
# The last text `_module_names` read, and what it found (one file at a time).
_NAMES_OF: tuple[str, dict[str, frozenset[str]]] | None = None


def _line_start_matches(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of `pattern` that only spaces and tabs precede on their line, as
    `finditer` gives those of the pattern led by `\n[ \t]*` over "\n" + `text`: after
    one that is not, the search goes on from its next character (a parenthesised
    import list it spans may hold a line that starts one)."""
    at = 0
    while (match := pattern.search(text, at)) is not None:
        start = match.start()
        if text[text.rfind("\n", 0, start) + 1 : start].strip(" \t"):
            at = start + 1
            continue
        yield match
        at = max(match.end(), start + 1)


def _module_names(text: str) -> dict[str, frozenset[str]]:
    """What the file's import statements bind, by the dotted name bound: `import a.b as m`
    binds m to "a.b", `import a` a to "a", `from a import b as m` m to "a.b" (a superset:
    statements are found by line, wherever they are, strings included)."""
    global _NAMES_OF
    if _NAMES_OF is not None and _NAMES_OF[0] is text:
        return _NAMES_OF[1]
    found: dict[str, set[str]] = {}
    if "import" in text:
        for match in _line_start_matches(_IMPORT, text):
            for item in match.group(1).split(","):
                name, _, alias = item.strip().partition(" as ")
                name, alias = name.strip(), alias.strip()
                if alias:
                    found.setdefault(name, set()).add(alias)
                elif name:
                    head = name.split(".", 1)[0]
                    found.setdefault(head, set()).add(head)
        for match in _line_start_matches(_FROM_IMPORT, text):
            module = match.group(1)
            for item in _COMMENT.sub("", match.group(2)).strip("()").split(","):
                name, _, alias = item.strip().partition(" as ")
                if name.strip():
                    bound = alias.strip() or name.strip()
                    found.setdefault(f"{module}.{name.strip()}", set()).add(bound)
    names = {module: frozenset(bound) for module, bound in found.items()}
    _NAMES_OF = (text, names)
    return names


def _spelt_through_alias(
    text: str, tails: tuple[tuple[str, str, str], ...], has: Callable[[str], bool]
) -> bool:
    """Whether a dotted token is spelt through a name an import binds to its module:
    `tc.graphs` after `import torch.cuda as tc` for "torch.cuda.graphs", as the engine's
    region search (`alias_tokens`) finds it once the file is read."""
    # `has` answers once per file (each rule with tails asked the text again: 0.05 s).
    if not tails or (not has(" as ") and not has("from")):
        return False
    # An import that binds a name to the module spells the module's first name (`import
    # a.b as m`, `from a import b as m`): read the file's imports only where one may.
    tails = tuple(tail for tail in tails if has(tail[2]) and has(tail[0].split(".", 1)[0]))
    if not tails:
        return False
    names = _module_names(text)
    for prefix, rest, first in tails:
        bound = names.get(prefix)
        if not bound or not has(first):
            continue
        tail = r"\s*\.\s*".join(map(re.escape, rest.split(".")))
        for name in bound:
            if name != prefix and re.search(rf"\b{re.escape(name)}\s*\.\s*{tail}\b", text):
                return True
    return False


def _imports_name(text: str, name: str, module: str) -> bool:
    """Whether a from-import statement of `module` in `text` names `name`."""
    word = _whole_word(name)
    return any(word.search(match.group(0)) for match in _from_statements(module).finditer(text))


@functools.lru_cache(maxsize=1024)
def _from_statements(module: str) -> re.Pattern[str]:
    """`module`'s from-import statements, compiled the first time a file asks: a literal
    first, so that the regex engine scans for "from" at C speed."""
    return re.compile(rf"from\s+{re.escape(module)}\s+import\s*(?:\([^)]*\)|[^\n]*)")


@functools.lru_cache(maxsize=1024)
def _whole_word(name: str) -> re.Pattern[str]:
    """`\\bNAME\\b`, compiled the first time a file asks (each rule's from-import names)."""
    return re.compile(rf"\b{re.escape(name)}\b")


def imports_module(module: str) -> TokenPattern:
    """A need (`Trigger.needs`): an import statement that may name `module` or a module
    under it (`import cuda`, `import os, cuda.cudart as rt`, `from cuda import cudart`),
    for a rule whose qualified names all start with `module`, which only such an import
    binds. It errs on the side of yes (`from numba import cuda` matches). As a need it
    keeps a file without one from the parse (as a gate it was checked after it)."""
    name = re.escape(module)
    return TokenPattern(
        module, rf"\bfrom[ \t]+{name}\b|\bimport[ \t]+(?:[\w. \t]+,[ \t]*)*{name}\b"
    )
