"""`# migrate: ignore` comments.

- `# migrate: ignore` on a line skips every rule there; `# migrate: ignore[NPU012,NPU020]`
  skips those codes (a code prefix such as `NPU0` works too).
- `# migrate: ignore-file` (optionally with codes) as a full-line comment in the first
  ten lines skips the whole file.
A suppression covers a site when it sits on the site's first or last line.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field

from migrator.model import Suppression

MARKER = "migrate:"
_COMMENT = re.compile(
    r"#\s*migrate:\s*(?P<kind>ignore-file|ignore)\b(?:\[(?P<codes>[A-Za-z0-9_,\s]*)\])?"
)
FILE_LEVEL_LINES = 10

# None means "every code".
Codes = frozenset[str] | None


def _codes(raw: str | None) -> Codes:
    if raw is None:
        return None
    return frozenset(code.strip() for code in raw.split(",") if code.strip())


def _matches(codes: Codes, code: str) -> bool:
    return codes is None or any(code.startswith(prefix) for prefix in codes)


@dataclass
class Suppressions:
    lines: dict[int, Codes] = field(default_factory=dict)
    file_line: int | None = None
    file_codes: Codes = None
    used: set[int] = field(default_factory=set)

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

    def unused(self, path: str) -> list[Suppression]:
        lines = dict(self.lines)
        if self.file_line is not None:
            lines[self.file_line] = self.file_codes
        return [
            Suppression(path, line, ",".join(sorted(codes)) if codes else "*")
            for line, codes in sorted(lines.items())
            if line not in self.used
        ]


def _add(found: Suppressions, line: int, text: str, full_line: bool) -> None:
    match = _COMMENT.search(text)
    if match is None:
        return
    codes = _codes(match.group("codes"))
    if match.group("kind") == "ignore-file":
        if full_line and line <= FILE_LEVEL_LINES and found.file_line is None:
            found.file_line, found.file_codes = line, codes
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
    for number, line in enumerate(text.splitlines(), start=1):
        if MARKER in line:
            _add(found, number, line, line.lstrip().startswith("#"))
    return found
