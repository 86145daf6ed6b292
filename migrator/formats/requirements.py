"""Reading pip requirements files line by line, keeping every byte.

A requirements file is read as logical entries: physical lines joined by a trailing
backslash, with `#` comments (at the start or after whitespace) cut off. Each entry is an
option line (`-r other.txt`, `--extra-index-url URL`), a requirement (`torch==2.7.1 ;
platform_machine == "aarch64" --hash=sha256:...`), or nothing (blank or comment). Entries
remember which physical lines they span, so a rule can delete or insert whole lines and
leave all other bytes alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

_COMMENT = re.compile(r"(^|\s+)#.*$")
_REQUIREMENT = re.compile(
    r"^(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?P<extras>\[[^\]]*\])?\s*"
    r"(?P<rest>.*)$"
)
_RELEASE = re.compile(r"^\s*v?(?P<release>\d+(?:\.\d+)*)")


def normalize(name: str) -> str:
    """The PEP 503 form of a project name: `Torch_NPU` -> `torch-npu`."""
    # Imported here: packaging.utils imports the platform tags, which a run reading no
    # requirement never needs.
    from packaging.utils import canonicalize_name

    return str(canonicalize_name(name))


def release(version: str) -> tuple[int, ...] | None:
    """The release numbers of a version: `2.7.1.post2` -> (2, 7, 1); None if none.

    A version `packaging` cannot read (a wildcard `2.7.*`, a stray suffix) still gives
    its leading numbers: callers compare releases, and a partial one is better than none.
    """
    try:
        return Version(version).release
    except InvalidVersion:
        pass
    match = _RELEASE.match(version)
    if match is None:
        return None
    return tuple(int(part) for part in match.group("release").split("."))


@dataclass(frozen=True)
class Entry:
    """One logical line: physical lines `first`..`last` (0-based, inclusive)."""

    first: int
    last: int
    text: str
    column: int
    option: str | None = None
    value: str = ""
    name: str | None = None
    requirement: str = ""
    specifier: str = ""
    marker: str = ""
    url: str = ""
    hashed: bool = False

    @property
    def pinned_version(self) -> str | None:
        """`2.7.1` for `==2.7.1` or `===2.7.1`; None for ranges, wildcards or nothing."""
        # Imported here: reading a project's files (every run) never needs it.
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        try:
            clauses = list(SpecifierSet(self.specifier))
        except InvalidSpecifier:
            return None
        if len(clauses) != 1 or clauses[0].operator not in ("==", "==="):
            return None
        version = clauses[0].version
        return None if "*" in version else version


def parse(lines: list[str]) -> list[Entry]:
    """The logical entries of a file's lines (with their endings, as `split_lines` gives)."""
    entries: list[Entry] = []
    index = 0
    while index < len(lines):
        first = index
        parts: list[str] = []
        while True:
            body = lines[index].rstrip("\r\n")
            if body.endswith("\\") and index + 1 < len(lines):
                parts.append(body[:-1])
                index += 1
                continue
            parts.append(body)
            break
        entries.append(_entry(first, index, " ".join(_COMMENT.sub("", p) for p in parts)))
        index += 1
    return entries


def _entry(first: int, last: int, text: str) -> Entry:
    stripped = text.strip()
    column = len(text) - len(text.lstrip()) + 1
    if not stripped:
        return Entry(first, last, text, column)
    if stripped.startswith("-"):
        words = stripped.split(None, 1)
        if words[0].startswith("--") and "=" in words[0]:
            option, _, value = stripped.partition("=")
        else:
            option, value = words[0], words[1] if len(words) > 1 else ""
        return Entry(first, last, text, column, option=option, value=value.strip())
    requirement, options = _split_options(stripped)
    match = _REQUIREMENT.match(requirement)
    if match is None:
        return Entry(first, last, text, column)
    rest = match.group("rest").strip()
    url = ""
    if rest.startswith("@"):
        url, _, marker = rest[1:].strip().partition(" ;")
        specifier = ""
    else:
        specifier, _, marker = rest.partition(";")
    return Entry(
        first,
        last,
        text,
        column,
        name=normalize(match.group("name")),
        requirement=requirement.strip(),
        specifier=specifier.strip(),
        marker=marker.strip(),
        url=url.strip(),
        hashed="--hash" in options,
    )


def _split_options(text: str) -> tuple[str, str]:
    """`torch==2.7.1 --hash=sha256:...` -> ("torch==2.7.1", "--hash=sha256:...")."""
    match = re.search(r"\s(--?[A-Za-z])", text)
    if match is None:
        return text, ""
    return text[: match.start()], text[match.start(1) :]
