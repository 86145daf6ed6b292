"""Reading and writing source files without losing a byte we did not mean to change.

Encodings (PEP 263 cookies, UTF-8 BOM), line endings and the final newline are kept
because the text is decoded and re-encoded as it is, never normalised; writes are atomic.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path


class SourceError(Exception):
    """A file the tool cannot read as source; the message names the problem and line."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def __str__(self) -> str:
        where = f" (line {self.line})" if self.line is not None else ""
        return f"{self.message}{where}"


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str

    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


_ASCII_PROBE = "# coding: x\n"


def _ascii_compatible(encoding: str) -> bool:
    try:
        return _ASCII_PROBE.encode("ascii").decode(encoding) == _ASCII_PROBE
    except UnicodeDecodeError:
        return False


def decode_python(data: bytes) -> Decoded:
    """Decode a Python file the way the interpreter would, or raise SourceError."""
    if b"\x00" in data:
        raise SourceError("contains null bytes", _line_of(data, data.index(b"\x00")))
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise SourceError(f"bad encoding declaration: {error.msg}", error.lineno) from None
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r}") from None
    if not _ascii_compatible(encoding):
        # Python reads source only in ASCII-compatible encodings (it rejects utf-16/32).
        raise SourceError(f"encoding problem: {encoding} (Python cannot read source in it)", 1)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise SourceError(
            f"cannot decode as {encoding}: byte 0x{data[error.start]:02x}",
            _line_of(data, error.start),
        ) from None
    return Decoded(text, encoding)


def decode_text(data: bytes) -> Decoded:
    """Decode a non-Python text file as UTF-8 (keeping a BOM), or raise SourceError."""
    if b"\x00" in data:
        raise SourceError("contains null bytes (binary file?)", _line_of(data, data.index(b"\x00")))
    encoding = "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8"
    try:
        return Decoded(data.decode(encoding), encoding)
    except UnicodeDecodeError as error:
        raise SourceError(
            f"cannot decode as UTF-8: byte 0x{data[error.start]:02x}",
            _line_of(data, error.start),
        ) from None


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


# What `str.splitlines` also ends a line at, and Python's tokenizer does not.
_OTHER_BREAKS = ("\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split only on \\n, \\r\\n and \\r (as Python's tokenizer).
    `str.splitlines` gives the same where the text holds none of the other characters it
    breaks at, three times faster than the regex (each `in` is one C scan, and a character
    wider than the text's own cannot be in it)."""
    if any(other in text for other in _OTHER_BREAKS):
        return _LINE.findall(text)
    return text.splitlines(keepends=True)


def newline_of(text: str) -> str:
    """The file's dominant line ending, for lines the tool inserts."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


TEMP_SUFFIX = ".migrate-tmp"
# `.NAME.HOST.PID.RANDOM.migrate-tmp`: the host and process id let a later run tell a
# temporary of a killed run (removable) from one a running migrate is still writing.
_TEMP = re.compile(
    r"^\.(?P<name>.+)\.(?P<host>[A-Za-z0-9-]+)\.(?P<pid>\d+)\.[0-9a-f]{8}\.migrate-tmp$"
)


def host_name() -> str:
    # Imported here: only a write or a sweep needs it, and socket is a start-up cost.
    import socket

    return re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname().split(".", 1)[0]) or "host"


def temp_path(path: Path) -> Path:
    """A fresh temporary's name beside `path` (not created)."""
    return path.with_name(
        f".{path.name}.{host_name()}.{os.getpid()}.{os.urandom(4).hex()}{TEMP_SUFFIX}"
    )


def parse_temp(name: str) -> tuple[str, int] | None:
    """(host, process id) of a temporary this tool names, else None."""
    found = _TEMP.match(name)
    return (found.group("host"), int(found.group("pid"))) if found else None


def open_temp(path: Path, mode: int = 0o600) -> tuple[int, Path]:
    """Create a new temporary beside `path`: (file descriptor, its path)."""
    for _ in range(100):
        tmp = temp_path(path)
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{path}: no free temporary name")


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def write_fd(fd: int, data: bytes, *, sync: bool = True) -> None:
    """All of `data` to `fd` (flushed to disk when `sync`); closes `fd` whatever happens."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` in one rename; keep its permission bits.

    A new file gets the mode any new file gets under the umask (the temporary file's own
    0600 would hide it from everyone else), executable if it starts with a `#!` line.
    """
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = new_file_mode(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = open_temp(path)
    try:
        write_fd(fd, data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def new_file_mode(data: bytes) -> int:
    umask = os.umask(0)
    os.umask(umask)
    return (0o777 if data.startswith(b"#!") else 0o666) & ~umask
