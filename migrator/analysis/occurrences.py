"""Where the rules' literals occur in one text, found in one pass over it.

The engine asks of each Python file, many times over, whether a literal occurs in it or in
one of its regions: every rule's tokens and patterns' literals for the file's pre-filter
(`Trigger.matches`), each part of the rules' patterns for the lines to parse
(`ast_lines.hot_lines_of`), each rule's patterns for each region (`engine.python._active`).
Each `literal in text` scans the text again, and a literal absent from it (the usual case)
scans all of it: on torch's source, 60 rules' 254 tokens were 4 CPU s of `in`. A `Finder`
holds the literals of a rule set in one Aho-Corasick automaton (ahocorasick_rs, the Rust
`aho-corasick` crate, which skips ahead between candidate bytes), and `Finder.scan` reads a
text once and keeps the start of every occurrence of every literal, overlapping ones
included (`cuda` inside `torch.cuda`). The automaton is the crate's default (an NFA) for
the first 512 kB a finder scans, then a DFA: on torch's 46 MB the scan takes 0.14 CPU s
with the DFA, against 0.31 s with the NFA and 0.75 s with pyahocorasick's C automaton
stepping through every character, but the DFA takes 1.3 ms to build instead of 0.25 ms
(15 million instructions more for a run over one small file).

`Occurrences.has` and `Occurrences.starts` answer for any literal: one the finder holds from
the scan, any other from the text itself, so an answer never depends on what the finder
was built with.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Sequence

import ahocorasick_rs

# How many characters a finder scans with its first automaton before it builds a DFA.
_DFA_AFTER = 512 * 1024


class Finder:
    """An automaton over a fixed set of literals (the empty string is left out)."""

    def __init__(self, literals: Iterable[str]) -> None:
        self.literals = frozenset(literal for literal in literals if literal)
        self._words = sorted(self.literals)
        self._automaton = self._built(None) if self._words else None
        self._scanned = 0

    def _built(
        self, implementation: ahocorasick_rs.Implementation | None
    ) -> ahocorasick_rs.AhoCorasick:
        return ahocorasick_rs.AhoCorasick(
            self._words, matchkind=ahocorasick_rs.MatchKind.Standard, implementation=implementation
        )

    def scan(self, text: str) -> Occurrences:
        """Every occurrence in `text` of every literal the finder holds (the matches come
        in the order they end, so each literal's starts are in order)."""
        found: dict[str, list[int]] = {}
        if self._automaton is not None:
            if self._scanned <= _DFA_AFTER:
                self._scanned += len(text)
                if self._scanned > _DFA_AFTER:
                    # Enough text to pay for the DFA's making (see the module docstring).
                    self._automaton = self._built(ahocorasick_rs.Implementation.DFA)
            words = self._words
            for index, start, _end in self._automaton.find_matches_as_indexes(
                text, overlapping=True
            ):
                literal = words[index]
                starts = found.get(literal)
                if starts is None:
                    found[literal] = [start]
                else:
                    starts.append(start)
        return Occurrences(text, self.literals, found)


@functools.lru_cache(maxsize=16)
def finder(literals: frozenset[str]) -> Finder:
    """The finder for a set of literals, built once per process."""
    return Finder(literals)


class Occurrences:
    """Where literals occur in one text (`Finder.scan`); `text` is that text."""

    __slots__ = ("_found", "_has", "_held", "_present", "text")

    def __init__(self, text: str, held: frozenset[str], found: dict[str, list[int]]) -> None:
        self.text = text
        self._held = held
        self._found = found
        self._has: dict[str, bool] = {}
        # The held literals that occur (`has_one_of`), made when first asked.
        self._present: frozenset[str] | None = None

    @property
    def held(self) -> frozenset[str]:
        """The literals the finder holds (their every occurrence is known)."""
        return self._held

    def has_one_of(self, literals: frozenset[str]) -> bool:
        """Whether one of `literals`, all of them held, occurs in the text."""
        if self._present is None:
            self._present = frozenset(
                literal
                for literal, starts in self._found.items()
                if starts and literal in self._held
            )
        return not self._present.isdisjoint(literals)

    def has(self, literal: str) -> bool:
        """Whether `literal` occurs in the text (one the finder does not hold is looked
        for once: the pre-filter asks each rule about its from-import names)."""
        found = self._found.get(literal)
        if found is not None:
            return bool(found)
        if literal in self._held:
            return False
        known = self._has.get(literal)
        if known is None:
            known = self._has[literal] = literal in self.text
        return known

    def has_any(self, literals: frozenset[str]) -> bool:
        """Whether one of `literals` occurs in the text (`has`, for a set at once: those
        the finder holds are answered by one intersection with what the scan found, the
        pre-filter's question for each rule and file)."""
        found = self._found
        if any(found[literal] for literal in found.keys() & literals):
            return True
        return any(self.has(literal) for literal in _unheld(self._held, literals))

    def starts(self, literal: str) -> Sequence[int]:
        """Where each occurrence of `literal` starts, in order (overlapping ones too)."""
        found = self._found.get(literal)
        if found is not None:
            return found
        if literal in self._held or not literal:
            return ()
        starts: list[int] = []
        at = self.text.find(literal)
        while at >= 0:
            starts.append(at)
            at = self.text.find(literal, at + 1)
        self._found[literal] = starts
        return starts


@functools.lru_cache(maxsize=1024)
def _unheld(held: frozenset[str], literals: frozenset[str]) -> tuple[str, ...]:
    """The literals a finder does not hold (each rule's, once per run)."""
    return tuple(sorted(literals - held))


def any_between(starts: Sequence[int], first: int, end: int) -> bool:
    """Whether a (sorted) start lies in `first <= start < end`."""
    index = bisect.bisect_left(starts, first)
    return index < len(starts) and starts[index] < end
