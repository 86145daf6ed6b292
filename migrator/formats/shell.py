"""A small shell lexer for the script rules: commands, words, expansions and quoted text.

It reads enough of POSIX sh / bash to give the rules exact offsets for

- simple commands and their words, split at newlines, `;`, `&`, `|`, `(` and `)`, with
  backslash-newline continuations joining lines (`VAR=1 \\` + `python x.py` is one command);
- parameter expansions `$NAME` and `${NAME...}` (also `${#NAME}`, `${NAME:-default}`) in
  unquoted text, in double quotes, in `${...}` operands, `$(...)`, backquotes and `$((...))`;
- literal text the shell does not expand: single quotes, `$'...'`, the text between
  expansions inside double quotes, and heredoc bodies, each with the command it belongs to;
- the spans of nested code (`$(...)`, backquotes, `${...}`) inside a word.

Comments (`#` at the start of a word) are skipped. It never executes or evaluates anything:
what a string passed to `eval` or `bash -c` does is not known here, and an unquoted
heredoc's body, which the shell does expand, is still reported as literal text; a `<<`
inside `$((...))` is a shift, not a heredoc. Unbalanced quotes run to the end of the text.
It also says where each command line starts (`Script.command_line_starts`), which
suppression comments and inserted TODO comments work on (`migrator.formats.textlines`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

# File names the shell-script rules read (Slurm batch scripts included).
SCRIPT_PATTERNS = ("*.sh", "*.bash", "*.zsh", "*.sbatch", "*.slurm")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ASSIGNMENT = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]]*\])?\+?=")
_BLANKS = " \t\r"
_SEPARATORS = ";&|"
_SPECIAL_PARAMETERS = "0123456789@*#?$!-"
# Words that may open a command before its real name (`if CUDA_X=1 cmd; then ...`).
_LEADING_RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "time",
     "esac"}
)  # fmt: skip


@dataclass
class Word:
    start: int
    end: int
    text: str


@dataclass(eq=False)
class Command:
    """A simple command: its words in order (assignment prefixes, name, arguments)."""

    words: list[Word] = field(default_factory=list)

    def parts(self) -> tuple[list[Word], Word | None, list[Word]]:
        """(prefix assignments, the command name, its arguments)."""
        index = 0
        while index < len(self.words) and self.words[index].text in _LEADING_RESERVED:
            index += 1
        assignments: list[Word] = []
        while index < len(self.words) and ASSIGNMENT.match(self.words[index].text):
            assignments.append(self.words[index])
            index += 1
        if index >= len(self.words):
            return assignments, None, []
        return assignments, self.words[index], self.words[index + 1 :]

    def name(self) -> str | None:
        word = self.parts()[1]
        return unquote(word.text) if word is not None else None

    def plain_words(self) -> list[str]:
        return [unquote(word.text) for word in self.words]


@dataclass(frozen=True)
class Expansion:
    """`$NAME` or `${NAME...}`: `start` is the offset of NAME itself."""

    name: str
    start: int
    command: Command

    @property
    def end(self) -> int:
        return self.start + len(self.name)


@dataclass(frozen=True)
class Literal:
    """Text the shell does not expand here: "single", "double" or "heredoc"."""

    start: int
    end: int
    kind: str
    command: Command


@dataclass
class Script:
    text: str
    commands: list[Command]
    expansions: list[Expansion]
    literals: list[Literal]
    nested: list[tuple[int, int]]
    # Where each command line starts (a line continued by a backslash, an open quote or
    # a heredoc body is one command line with the line it continues).
    command_line_starts: list[int] = field(default_factory=lambda: [0])

    def in_literal(self, offset: int) -> Literal | None:
        for literal in self.literals:
            if literal.start <= offset < literal.end:
                return literal
        return None

    def in_nested(self, offset: int, word: Word) -> bool:
        """Whether `offset` lies in code nested inside `word` (`$(...)`, `${...}`)."""
        return any(
            word.start <= start and offset >= start and offset < end
            for start, end in self.nested
            if end <= word.end
        )


def unquote(text: str) -> str:
    """A word's text without quotes and backslashes (good enough to compare names)."""
    return re.sub(r"""["'\\]""", "", text)


def parse(text: str) -> Script:
    scanner = _Scanner(text)
    scanner.code(0, None)
    commands = [command for command in scanner.commands if command.words]
    return Script(
        text, commands, scanner.expansions, scanner.literals, scanner.nested, scanner.line_starts
    )


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.commands: list[Command] = []
        self.expansions: list[Expansion] = []
        self.literals: list[Literal] = []
        self.nested: list[tuple[int, int]] = []
        self.heredocs: list[tuple[str, bool, Command]] = []
        # Offsets at which a command line starts: after a newline that is not inside
        # quotes, a continuation or a heredoc body (its bodies belong to the line before).
        self.line_starts: list[int] = [0]
        # How deep the scan is in double-quoted strings, and in `$((...))`.
        self.quoted = 0
        self.arithmetic = 0

    def _command(self) -> Command:
        command = Command()
        self.commands.append(command)
        return command

    def _literal(self, start: int, end: int, kind: str, command: Command) -> None:
        if end > start:
            self.literals.append(Literal(start, end, kind, command))

    def code(self, pos: int, closer: str | None) -> int:
        """Commands from `pos` to `closer` (`)` or a backquote) or the end; returns the
        offset after the closer."""
        text, n = self.text, self.n
        command = self._command()
        word: int | None = None
        depth = 0
        i = pos

        def end_word(at: int) -> None:
            nonlocal word
            if word is not None and at > word:
                command.words.append(Word(word, at, text[word:at]))
            word = None

        while i < n:
            c = text[i]
            if c == closer and (closer != ")" or depth == 0):
                end_word(i)
                return i + 1
            if c in _BLANKS:
                end_word(i)
                i += 1
            elif c == "\\":
                if text.startswith("\n", i + 1) or text.startswith("\r\n", i + 1):
                    end_word(i)
                    i += 2 if text[i + 1] == "\n" else 3
                else:
                    word = i if word is None else word
                    i += 2
            elif c == "\n":
                end_word(i)
                command = self._command()
                i += 1
                if self.heredocs:
                    i = self._heredoc_bodies(i)
                if not self.quoted and i < n:
                    self.line_starts.append(i)
            elif c == "#" and word is None:
                newline = text.find("\n", i)
                i = n if newline < 0 else newline
            elif c in _SEPARATORS or c in "()":
                end_word(i)
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth = max(0, depth - 1)
                command = self._command()
                i += 1
            elif c in "<>":
                end_word(i)
                if text.startswith("<<<", i):
                    i += 3
                elif text.startswith("<<", i) and self.arithmetic:
                    i += 2
                elif text.startswith("<<", i):
                    i = self._heredoc_operator(i + 2, command)
                else:
                    i += 1
            else:
                word = i if word is None else word
                i = self._word_part(i, command, in_double=False)
        end_word(n)
        return n

    def _word_part(self, i: int, command: Command, *, in_double: bool) -> int:
        c = self.text[i]
        if c == "'":
            return self._single(i, command)
        if c == '"':
            return self._double(i + 1, command)
        if c == "`":
            end = self.code(i + 1, "`")
            self.nested.append((i, end))
            return end
        if c == "$":
            return self._dollar(i, command, in_double=in_double)
        return i + 1

    def _single(self, i: int, command: Command) -> int:
        close = self.text.find("'", i + 1)
        end = self.n if close < 0 else close
        self._literal(i + 1, end, "single", command)
        return end + 1

    def _ansi(self, i: int, command: Command) -> int:
        """`$'...'` from the quote at `i` (backslash escapes allowed)."""
        j = i + 1
        while j < self.n and self.text[j] != "'":
            j += 2 if self.text[j] == "\\" else 1
        self._literal(i + 1, min(j, self.n), "single", command)
        return j + 1

    def _double(self, i: int, command: Command) -> int:
        """From just after an opening double quote to just after its closing one."""
        self.quoted += 1
        end = self._double_body(i, command)
        self.quoted -= 1
        return end

    def _double_body(self, i: int, command: Command) -> int:
        text, n = self.text, self.n
        segment = i
        j = i
        while j < n:
            c = text[j]
            if c == '"':
                self._literal(segment, j, "double", command)
                return j + 1
            if c == "\\":
                j += 2
            elif c in "$`":
                self._literal(segment, j, "double", command)
                j = self._word_part(j, command, in_double=True)
                segment = j
            else:
                j += 1
        self._literal(segment, n, "double", command)
        return n

    def _dollar(self, i: int, command: Command, *, in_double: bool) -> int:
        text = self.text
        following = text[i + 1] if i + 1 < self.n else ""
        if following == "(":
            # `$((...))` is arithmetic: a `<<` in it is a shift, not a heredoc.
            arithmetic = text.startswith("(", i + 2)
            self.arithmetic += arithmetic
            end = self.code(i + 2, ")")
            self.arithmetic -= arithmetic
            self.nested.append((i, end))
            return end
        if following == "{":
            end = self._brace(i + 2, command)
            self.nested.append((i, end))
            return end
        if following == "'" and not in_double:
            return self._ansi(i + 1, command)
        if following == '"' and not in_double:
            return self._double(i + 2, command)
        match = NAME.match(text, i + 1)
        if match:
            self.expansions.append(Expansion(match.group(), match.start(), command))
            return match.end()
        if following and following in _SPECIAL_PARAMETERS:
            return i + 2
        return i + 1

    def _brace(self, i: int, command: Command) -> int:
        """`${...}` from just after the brace to just after its closing brace."""
        text, n = self.text, self.n
        j = i + 1 if i < n and text[i] in "#!" else i
        match = NAME.match(text, j)
        if match:
            self.expansions.append(Expansion(match.group(), match.start(), command))
            j = match.end()
        while j < n:
            c = text[j]
            if c == "}":
                return j + 1
            if c == "\\":
                j += 2
            elif c in "'\"`$":
                j = self._word_part(j, command, in_double=False)
            else:
                j += 1
        return n

    def _heredoc_operator(self, i: int, command: Command) -> int:
        """After `<<`: note the delimiter; the body is read at the next newline."""
        text, n = self.text, self.n
        strip_tabs = i < n and text[i] == "-"
        j = i + 1 if strip_tabs else i
        while j < n and text[j] in " \t":
            j += 1
        start = j
        while j < n and text[j] not in " \t\r\n;&|<>()":
            if text[j] in "'\"":
                close = text.find(text[j], j + 1)
                j = n if close < 0 else close + 1
            else:
                j += 1
        delimiter = unquote(text[start:j])
        if delimiter:
            self.heredocs.append((delimiter, strip_tabs, command))
        return j

    def _heredoc_bodies(self, i: int) -> int:
        text, n = self.text, self.n
        for delimiter, strip_tabs, command in self.heredocs:
            start = i
            while i < n:
                newline = text.find("\n", i)
                line_end = n if newline < 0 else newline
                line = text[i:line_end].rstrip("\r")
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    self._literal(start, i, "heredoc", command)
                    i = min(line_end + 1, n)
                    break
                i = line_end + 1
            else:
                self._literal(start, n, "heredoc", command)
                i = n
        self.heredocs.clear()
        return i


def line_starts(text: str) -> list[int]:
    """Offsets at which each line starts (for 1-based line/column reporting)."""
    return [0, *(match.end() for match in re.finditer(r"\r\n|\r|\n", text))]


def position(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of `offset`, given `line_starts(text)`."""
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1
