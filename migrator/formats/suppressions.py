"""`# migrate: ignore` comments.

- `# migrate: ignore` on a line skips every rule there; `# migrate: ignore[NPU012,NPU020]`
  skips those codes (a code prefix such as `NPU0` works too; case does not matter).
- `# migrate: ignore-file` (optionally with codes) as a full-line comment in the first
  ten lines skips the whole file.
A suppression covers a site when it sits on the site's first or last line.

A code list that cannot be read (`ignore[NPU-001]`) suppresses nothing and is reported as
unused, never widened to "every code": a typo must not hide more than the user asked for.
The same holds for an `ignore-file` that is not a full-line comment in the first ten lines.

A retired code that is an alias of a live one (`ALIASES` in a rule package, see the code
policy in `rules/__init__.py`) still suppresses the live code, and the engine reports a
warning under the live code asking for the comment to name it (`Suppressions.aliased`).
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass, field

from migrator.core.model import Finding
from migrator.formats.sources import split_lines

MARKER = "migrate:"
_COMMENT = re.compile(
    r"#\s*migrate:\s*(?P<kind>ignore-file|ignore)(?![\w-])(?:\s*\[(?P<codes>[^\]]*)\])?"
)
# In `#`-comment text formats a comment starts the line or follows whitespace.
_TEXT_COMMENT = re.compile(r"(?:^|\s)#")
FILE_LEVEL_LINES = 10
MISPLACED = f"ignore-file outside the first {FILE_LEVEL_LINES} lines or after code"

# None means "every code".
Codes = frozenset[str] | None


def _codes(raw: str | None) -> Codes:
    if raw is None:
        return None
    return frozenset(code.strip().upper() for code in raw.split(",") if code.strip())


def _matches(codes: Codes, code: str) -> bool:
    return codes is None or any(code.startswith(prefix) for prefix in codes)


def _shown(codes: Codes) -> str:
    if codes is None:
        return "*"
    return ",".join(sorted(codes)) or "[]"


@dataclass
class Suppressions:
    lines: dict[int, Codes] = field(default_factory=dict)
    file_line: int | None = None
    file_codes: Codes = None
    misplaced: list[int] = field(default_factory=list)
    used: set[int] = field(default_factory=set)
    # (line, retired code, its successor) for each retired code a comment names.
    renamed: list[tuple[int, str, str]] = field(default_factory=list)

    def follow(self, aliases: Mapping[str, str]) -> Suppressions:
        """Read retired codes as their successors (only whole codes, never a prefix)."""
        if not aliases:
            return self

        def live(line: int, codes: Codes) -> Codes:
            if codes is None or not codes & aliases.keys():
                return codes
            for old in sorted(codes & aliases.keys()):
                self.renamed.append((line, old, aliases[old]))
            return frozenset(aliases.get(code, code) for code in codes)

        self.lines = {line: live(line, codes) for line, codes in self.lines.items()}
        if self.file_line is not None:
            self.file_codes = live(self.file_line, self.file_codes)
        self.renamed.sort()
        return self

    def aliased(self, path: str) -> list[Finding]:
        """A warning, under the live code, for each comment that names a retired one."""
        found = []
        for line, old, new in self.renamed:
            message = f"`# migrate: ignore[{old}]`: {old} is now {new}; the comment still works"
            found.append(Finding.warning(path, line, 1, new, message, f"write {new} there"))
        return found

    def covering(self, code: str, first: int, last: int) -> int | None:
        """The line of the comment that suppresses `code` at first..last, if any."""
        if self.file_line is not None and _matches(self.file_codes, code):
            self.used.add(self.file_line)
            return self.file_line
        for line in (first, last):
            if line in self.lines and _matches(self.lines[line], code):
                self.used.add(line)
                return line
        return None

    def skips_file(self) -> bool:
        return self.file_line is not None and self.file_codes is None

    def skip_file(self) -> None:
        """A blanket `ignore-file` counts as used: it did its job by skipping the file."""
        if self.file_line is not None:
            self.used.add(self.file_line)

    def unused(self, path: str) -> list[Finding]:
        found = [
            Finding.suppression(path, line, _shown(codes))
            for line, codes in self.lines.items()
            if line not in self.used
        ]
        if self.file_line is not None and self.file_line not in self.used:
            found.append(Finding.suppression(path, self.file_line, _shown(self.file_codes)))
        found += [Finding.suppression(path, line, MISPLACED) for line in self.misplaced]
        return sorted(found, key=Finding.sort_key)


def _add(found: Suppressions, line: int, text: str, full_line: bool) -> None:
    match = _COMMENT.search(text)
    if match is None:
        return
    codes = _codes(match.group("codes"))
    if match.group("kind") == "ignore-file":
        if full_line and line <= FILE_LEVEL_LINES and found.file_line is None:
            found.file_line, found.file_codes = line, codes
        else:
            found.misplaced.append(line)
    else:
        found.lines[line] = codes


def python_suppressions(text: str) -> Suppressions:
    """Read suppressions from real comments only (never from string contents)."""
    found = Suppressions()
    if MARKER not in text:
        return found
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return text_suppressions(text)
    for token in tokens:
        if token.type == tokenize.COMMENT:
            line = token.start[0]
            _add(found, line, token.string, token.line.lstrip().startswith("#"))
    return found


def text_suppressions(text: str) -> Suppressions:
    """Suppressions in `#`-comment file formats (shell, requirements, YAML)."""
    found = Suppressions()
    if MARKER not in text:
        return found
    for number, raw in enumerate(split_lines(text), start=1):
        line = raw.rstrip("\r\n")
        if MARKER not in line:
            continue
        start = _TEXT_COMMENT.search(line)
        if start is not None:
            comment = line[start.end() - 1 :]
            _add(found, number, comment, line.lstrip().startswith("#"))
    return found
