"""One scan of a file for every rule literal (`migrator.analysis.occurrences`) gives the same
answers as searching the text: the occurrences themselves, the file pre-filter, the lines
to parse, and which rules may act in a region."""

from __future__ import annotations

import ast
import bisect
import itertools
import re
from pathlib import Path

import accelerate
import libcst
import pytest

from migrator.analysis.ast_lines import (
    LineSearch,
    alternatives,
    first_line,
    hot_lines_of,
    last_line,
    part_literal,
)
from migrator.analysis.bindings import module_bindings
from migrator.analysis.occurrences import Finder, any_between
from migrator.contract.rule import PythonRule
from migrator.engine import registry
from migrator.engine.python import (
    RulePattern,
    _literal_starts,
    _may_occur,
    alias_tokens,
    compile_parts,
    line_literals,
    literals_of,
    rule_pattern,
    without_strings,
)
from migrator.formats.sources import split_lines

RULES = [rule for rule in registry.load().rules if issubclass(rule, PythonRule)]

# Constructs each kind of part matches: tokens, the rules' regex patterns (a device string,
# `.cpu().numpy()` across a line break, a library's file name), a module alias, a name
# imported under another name, and text outside the ASCII range before them all (the
# automaton's positions are in characters, as `str.find`'s are).
_WRITTEN = '''\
"""Modèle à entraîner: ça tourne sur « cuda »."""
import torch
import torch.cuda as tc
from torch.cuda.amp import GradScaler as Scaler
from torch import autocast as ac

DEVICE = "cuda:0"


def step(model, batch):
    with ac("cuda", dtype=torch.bfloat16):
        loss = model(batch.cuda())
    tc.synchronize()
    scaler = Scaler()
    return loss.detach().cpu()\\
        .numpy()


lib = ctypes.CDLL("libcudart.so")
torch.backends.cudnn.benchmark = True
dist.init_process_group("nccl")
# a comment naming torch.cuda.synchronize()
'''


def _texts() -> list[tuple[str, str]]:
    """Real code the tool's authors did not write (accelerate's largest modules, LibCST's
    expression nodes) and the written sample."""
    folder = Path(accelerate.__file__).parent
    largest = sorted(folder.rglob("*.py"), key=lambda path: -path.stat().st_size)[:12]
    files = [*largest, Path(libcst.__file__).parent / "_nodes" / "expression.py"]
    return [(path.name, path.read_text(encoding="utf-8")) for path in files] + [
        ("written.py", _WRITTEN)
    ]


TEXTS = _texts()
FINDER = Finder(literals_of(RULES))


def _find_all(text: str, literal: str) -> list[int]:
    found, at = [], text.find(literal)
    while at >= 0:
        found.append(at)
        at = text.find(literal, at + 1)
    return found


@pytest.mark.parametrize(("name", "text"), TEXTS, ids=[name for name, _ in TEXTS])
def test_the_scan_finds_every_occurrence_of_every_literal(name: str, text: str) -> None:
    found = FINDER.scan(text)
    present = 0
    for literal in FINDER.literals:
        expected = _find_all(text, literal)
        assert list(found.starts(literal)) == expected, literal
        assert found.has(literal) is bool(expected), literal
        present += bool(expected)
    assert present >= 3
    # A literal the finder does not hold is answered from the text.
    assert found.has("def ") is ("def " in text)
    assert list(found.starts("self")) == _find_all(text, "self")


def test_the_pre_filters_quick_check_never_turns_away_a_text_the_full_check_admits() -> None:
    """`Trigger.may_match` (is one of the literals every admitted text holds there?) is
    False only where `Trigger.matches` is, for every rule and text of the suite, and it
    turns most rule and text pairs away."""
    rules = RULES
    engine = Finder(literal for rule in rules for literal in rule.trigger.literals())
    admitted = turned_away = 0
    for name, text in TEXTS:
        found = engine.scan(text)
        for rule in rules:
            if rule.trigger.matches(text, found):
                admitted += 1
                assert rule.trigger.may_match(found), (name, rule.code)
            turned_away += not rule.trigger.may_match(found)
    assert admitted > 50
    assert turned_away > len(TEXTS) * len(rules) // 2


def test_overlapping_and_non_ascii_occurrences() -> None:
    found = Finder(["cuda", "torch.cuda", "a.c", "é"]).scan("é torch.cudaécuda a.cuda")
    assert list(found.starts("cuda")) == [8, 13, 20]
    assert list(found.starts("torch.cuda")) == [2]
    assert list(found.starts("a.c")) == [18]
    assert list(found.starts("é")) == [0, 12]
    assert not found.has("nccl")
    assert any_between(found.starts("cuda"), 9, 14)
    assert not any_between(found.starts("cuda"), 14, 20)
    # Offsets count characters, not UTF-8 bytes, past characters of two, three and four
    # bytes; a literal overlapping itself is found at each start, in order.
    text = "ü日\U0001f600cuda 😀 aaaa"
    found = Finder(["cuda", "😀", "aa"]).scan(text)
    assert list(found.starts("cuda")) == [3] == [text.find("cuda")]
    assert list(found.starts("😀")) == [2, 8]
    assert list(found.starts("aa")) == [10, 11, 12]


def _region_spans(tree: ast.Module) -> list[tuple[int, int]]:
    """Each top-level statement, and every method of a class, as the engine's regions are."""
    spans = [(first_line(node), last_line(node)) for node in tree.body]
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            spans += [(first_line(item), last_line(item)) for item in node.body]
    return spans


@pytest.mark.parametrize(("name", "text"), TEXTS, ids=[name for name, _ in TEXTS])
def test_the_pre_filter_lines_and_regions_agree_with_searching_the_text(
    name: str, text: str
) -> None:
    found = FINDER.scan(text)
    tree = ast.parse(text)
    bindings = module_bindings(tree)
    lines = split_lines(text)
    offsets = [0, *itertools.accumulate(map(len, lines))]
    spans = _region_spans(tree)
    matched = searched = 0
    every = []
    for rule in RULES:
        assert rule.trigger.matches(text, found) is rule.trigger.matches(text), rule.code
        matched += rule.trigger.matches(text)
        parts = rule_pattern(rule, bindings)
        every += parts
        pattern = compile_parts(parts)
        held = {p.regex: p.literal for p in rule.trigger.patterns}
        starts = _literal_starts(parts, found, held)
        for first, last in spans:
            body = "".join(lines[first - 1 : last])
            if pattern.search(body):
                searched += 1
                # A region where the rule's search matches is never skipped.
                assert _may_occur(starts, (offsets[first - 1], offsets[last])), (rule.code, first)
    assert hot_lines_of(text, lines, every, found) == hot_lines_of(text, lines, every)
    one_line = {regex: literal for rule in RULES for regex, literal in line_literals(rule).items()}
    assert one_line, "a rule declares a one-line pattern"
    # One-line patterns tried on the lines of their literal find the lines a search finds.
    assert hot_lines_of(text, lines, every, found, one_line) == hot_lines_of(text, lines, every)
    # Every file but LibCST's (no torch in it: the operator names NPU080 once matched in
    # its docstrings are not called) holds some rule's token and some region it searches.
    assert (matched and searched) or name == "expression.py"


def _lines_by_regex(text: str, lines: list[str], pattern: str) -> list[int]:
    """The reference: the lines (not comment lines) where `pattern` matches, by `re`."""
    offsets = [0, *itertools.accumulate(map(len, lines))]
    return sorted(
        {
            bisect.bisect_right(offsets, match.start())
            for match in re.finditer(pattern, text)
            if not lines[bisect.bisect_right(offsets, match.start()) - 1].lstrip().startswith("#")
        }
    )


def test_whole_word_parts_read_from_the_scan_match_the_regex() -> None:
    # `cuda` as a word at the very start and end of the text, next to an underscore, a
    # digit, a letter outside ASCII, a dot; twice on one line; in a comment; overlapping.
    text = (
        "cuda = 1\n"
        "x_cuda = cuda_x + cudaé + écuda + cuda2 + 2cuda\n"
        "y = cuda.cuda(cuda) ; z = (cuda)\n"
        "  # cuda in a comment\n"
        "s = 'a cuda string'\n"
        "cudacuda\n"
        "w = nccl\n"
        "cuda"
    )
    lines = split_lines(text)
    found = Finder(["cuda", "nccl", "cudnn"]).scan(text)
    for parts in (["\\bcuda\\b"], ["\\bnccl\\b", "\\bcuda\\b"], ["\\bcudnn\\b"]):
        expected = _lines_by_regex(text, lines, "|".join(parts))
        assert hot_lines_of(text, lines, parts, found) == expected, parts
        assert hot_lines_of(text, lines, parts) == expected, parts
    assert hot_lines_of(text, lines, ["\\bcuda\\b"], found) == [1, 3, 5, 8]
    # A name the finder does not hold is found in the text.
    assert hot_lines_of(text, lines, ["\\bw\\b"], found) == [7]


# NPU010's pattern: a quoted "cuda" on a line that is not a doctest line.
_QUOTED = r"""(?m:^(?![ \t]*(?:>>>|\.\.\.))[^\n]*["']cuda)"""


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_one_line_patterns_are_found_on_the_lines_of_their_literal(ending: str) -> None:
    text = ending.join(
        [
            'x = "cuda"',
            "    >>> pipe.to('cuda')",
            "y = cuda + 'cpu'  # 'cuda' in a comment",
            "# 'cuda' on a comment line",
            "z = f(\"a\", 'cuda:0') + g('cuda')",
            "cuda cuda cuda",
            "w = ['cpu', \"cuda\"]",
        ]
    )
    lines = split_lines(text)
    found = Finder(["cuda"]).scan(text)
    expected = _lines_by_regex(text, lines, _QUOTED)
    one_line = {_QUOTED: "cuda"}
    assert hot_lines_of(text, lines, [_QUOTED], found, one_line) == expected
    assert hot_lines_of(text, lines, [_QUOTED], None, one_line) == expected
    if ending != "\r":
        assert expected == [1, 3, 5, 7]
    search = LineSearch("cuda", _QUOTED)
    regex = re.compile(_QUOTED)
    assert [m.span() for m in search.finditer(text)] == [m.span() for m in regex.finditer(text)]
    assert search.search(text).span() == regex.search(text).span()  # type: ignore[union-attr]
    assert search.search("cuda = 1\n    >>> x.to('cuda')\n") is None


def _lines_of(body: str, starts: list[int]) -> set[int]:
    return {body.count("\n", 0, start) for start in starts}


@pytest.mark.parametrize(("name", "text"), TEXTS, ids=[name for name, _ in TEXTS])
def test_a_rules_pieces_answer_as_its_one_alternation(name: str, text: str) -> None:
    """`RulePattern` (whole words read off the scan, literal parts tried where their
    literal is, the rest and the aliases as alternations) says a region matches exactly
    where `rule_pattern`'s one alternation matches, in the text and in the text with its
    strings blanked; its match starts fall on every line the alternation's do."""
    found = FINDER.scan(text)
    tree = ast.parse(text)
    bindings = module_bindings(tree)
    lines = split_lines(text)
    offsets = [0, *itertools.accumulate(map(len, lines))]
    spans = _region_spans(tree)
    matched = 0
    for rule in RULES:
        pattern = compile_parts(rule_pattern(rule, bindings))
        pieces = RulePattern(rule, alias_tokens(rule, bindings), found)
        for first, last in spans:
            body = "".join(lines[first - 1 : last])
            offset = offsets[first - 1]
            for seen in (body, without_strings(body)):
                expected = pattern.search(seen) is not None
                assert pieces.search(seen, offset) is expected, (rule.code, first)
                matched += expected
                starts = [match.start() for match in pattern.finditer(seen)]
                assert _lines_of(seen, starts) <= _lines_of(seen, pieces.starts(seen, offset))
    # Every file but LibCST's has a region some rule's search matches.
    assert matched or name == "expression.py"


def test_pieces_with_words_literals_lookbehinds_and_aliases() -> None:
    text = (
        "import torch as th\n"
        "x = re.compile(p); y = model.compile()\n"
        "th.cuda.synchronize()  # th.cuda\n"
        "s = 'torch.compile' + name_cuda\n"
        "cuda(1)\n"
    )
    found = Finder(["cuda", "compile", "torch.compile"]).scan(text)
    lines = split_lines(text)
    offsets = [0, *itertools.accumulate(map(len, lines))]
    parts = ["\\bcuda\\b", "(?<!\\bre)\\.compile\\b|torch\\.compile"]

    class Rule:
        class trigger:  # the attribute a rule's trigger sits in
            patterns = ()

            @staticmethod
            def token_regexes() -> tuple[str, ...]:
                return tuple(parts)

    pieces = RulePattern(Rule, ("\\bth\\.cuda",), found)  # type: ignore[arg-type]
    whole = compile_parts([*parts, "\\bth\\.cuda"])
    for number, line in enumerate(lines):
        for seen in (line, without_strings(line)):
            assert pieces.search(seen, offsets[number]) is (whole.search(seen) is not None)
    # The lookbehind keeps `re.compile` out; the blanked string hides `torch.compile`.
    assert pieces.starts(lines[1], offsets[1]) == [lines[1].index(".compile()")]
    assert pieces.search(lines[3], offsets[3])
    assert not pieces.search(without_strings(lines[3]), offsets[3])
    # The alias and the word, each where it starts (the comment is searched too).
    assert sorted(pieces.starts(lines[2], offsets[2])) == [0, 3, 25, 28]


def test_alternatives_and_literals_of_parts() -> None:
    assert alternatives("\\bimport\\b[^\\n]*\\btorch\\b|\\bfrom\\s+torch\\b") == (
        "\\bimport\\b[^\\n]*\\btorch\\b",
        "\\bfrom\\s+torch\\b",
    )
    # Bars in a group, a class or escaped stay; a global flag or an empty side keeps it whole.
    assert alternatives("a(b|c)|[|]d|e\\|f") == ("a(b|c)", "[|]d", "e\\|f")
    assert alternatives("[]|]x|y") == ("[]|]x", "y")
    assert alternatives("(?i)a|b") == ("(?i)a|b",)
    assert alternatives("|a") == ("|a",)
    assert alternatives("abc") == ("abc",)
    # A lookbehind matches no text: the literal after it begins every match.
    assert part_literal("(?<!\\bre)\\.compile\\b") == ".compile"
    assert part_literal("(?<=x)ab?") == "a"
    assert part_literal("(?<!a|b)cd") == ""
    assert part_literal("(?<!unclosed") == ""
    # Escaped punctuation and plain `=`, `:` match themselves; a class, an escaped letter, a
    # plain space (which a verbose pattern skips) or a quantified last character end it.
    assert part_literal(re.escape("def main(")) == "def main("
    assert part_literal("dtype=float") == "dtype=float"
    assert part_literal('\\.to\\(\\s*"cuda') == ".to("
    assert part_literal("cuda:\\d") == "cuda:"
    assert part_literal("ab\\(?") == "ab"
    assert part_literal("x\\.y*") == "x."
    assert part_literal("a b") == "a"
    text = "def main(\ndef  main(x)\nif dtype=float or dtype= float:\n"
    lines = split_lines(text)
    parts = [re.escape("def main("), "dtype=float", "dtype=\\s*float"]
    found = Finder([part_literal(part) for part in parts]).scan(text)
    for part in parts:
        expected = _lines_by_regex(text, lines, part)
        assert hot_lines_of(text, lines, [part], found) == expected, part
    assert hot_lines_of(text, lines, parts[:1], found) == [1]
    text = "from  torch import x\nimport os, torch\nre.compile(a).compile\n# import torch\n"
    lines = split_lines(text)
    found = Finder(["torch", "import", "from", ".compile"]).scan(text)
    for part in ("\\bimport\\b[^\\n]*\\btorch\\b|\\bfrom\\s+torch\\b", "(?<!\\bre)\\.compile\\b"):
        expected = _lines_by_regex(text, lines, part)
        assert hot_lines_of(text, lines, [part], found) == expected, part
        assert hot_lines_of(text, lines, [part]) == expected, part
    assert hot_lines_of(text, lines, ["(?<!\\bre)\\.compile\\b"], found) == [3]


def test_has_any_answers_as_has_for_each_literal() -> None:
    text = "import torch\nx = torch.cuda.is_available()\n# nccl\n"
    found = Finder(["cuda", "npu", "torch.cuda", "hccl"]).scan(text)
    # A literal the finder does not hold is looked for in the text, and one asked about
    # before (`starts`) that does not occur is no occurrence.
    assert found.starts("xpu") == []
    for literals in (
        {"cuda"}, {"npu"}, {"npu", "hccl"}, {"npu", "nccl"}, {"xpu"}, {"xpu", "is_available"},
        {"hccl", "torch.cuda"}, set(),
    ):  # fmt: skip
        wanted = any(found.has(literal) for literal in literals)
        assert found.has_any(frozenset(literals)) is wanted, literals


def test_alias_parts_are_found_as_their_alternation_finds_them() -> None:
    import random

    class Rule:
        class trigger:  # a rule with no regexes of its own: the aliases alone
            patterns = ()

            @staticmethod
            def token_regexes() -> tuple[str, ...]:
                return ()

    # Whole words, parts led by a literal, and one with no literal head (a regex).
    parts = ["\\btorch\\.cuda", "\\bth\\b", "\\btc\\.amp", "\\bé\\b", "\\bfoo(?:x)", "(?:fo|ba)z"]
    whole = compile_parts(parts)
    pieces = ["torch.cuda", "th", "tc.amp", "é", "foox", "baz", "x", "_", "é", ".", " ", "\n", "("]
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        aliases = RulePattern(Rule, parts, Finder([]).scan(text))  # type: ignore[arg-type]
        assert aliases.search(text, 0) is (whole.search(text) is not None), text
        assert {match.start() for match in whole.finditer(text)} <= set(aliases.starts(text, 0))


# What `without_strings` means: the tokenizer's string literals and comments from the
# left, one pattern led by an optional prefix (its first form, tried at every position).
_LITERAL_OR_COMMENT = re.compile(
    r"(?P<prefix>[rRbBuUfF]{0,2})"
    r"(?:'''(?:\\[\s\S]|[^\\])*?'''|\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\""
    r"|'(?:\\[\s\S]|[^'\\\n])*'|\"(?:\\[\s\S]|[^\"\\\n])*\")"
    r"|#[^\n]*"
)


def _blanked_by_definition(code: str) -> str:
    def blank(match: re.Match[str]) -> str:
        text = match.group(0)
        if text.startswith("#") or "f" in match.group("prefix").lower():
            return text
        return re.sub(r"[^\r\n]", " ", text)

    return _LITERAL_OR_COMMENT.sub(blank, code)


def test_strings_are_blanked_as_the_tokenizer_reads_them() -> None:
    import random

    pieces = ["'", '"', "'''", '"""', "\\", "\n", "\r\n", "#", "r", "b", "f", "F", "rb", "x"]
    pieces += [" ", "if", "'cuda'", 'f"{x}"', "U", "Br", "é"]
    rng = random.Random(0)
    for _ in range(50_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert without_strings(text) == _blanked_by_definition(text), repr(text)
    for name, text in TEXTS:
        assert without_strings(text) == _blanked_by_definition(text), name


def test_the_finders_dfa_finds_what_its_first_automaton_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from migrator.analysis import occurrences

    texts = [text for _, text in TEXTS]
    monkeypatch.setattr(occurrences, "_DFA_AFTER", 0)
    dfa = Finder(literals_of(RULES))
    with_dfa = [dfa.scan(text)._found for text in texts]
    monkeypatch.setattr(occurrences, "_DFA_AFTER", 10**12)
    nfa = Finder(literals_of(RULES))
    assert [nfa.scan(text)._found for text in texts] == with_dfa
    # The real threshold: a run's first texts on one automaton, the rest on the other.
    monkeypatch.undo()
    switching = Finder(literals_of(RULES))
    assert sum(map(len, texts)) > occurrences._DFA_AFTER
    assert [switching.scan(text)._found for text in texts] == with_dfa
    assert switching._scanned > occurrences._DFA_AFTER
