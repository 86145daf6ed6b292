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
import tempfile
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
        text = data.decode(encoding)
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r}") from None
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


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split only on \\n, \\r\\n and \\r (as Python's tokenizer)."""
    return _LINE.findall(text)


def newline_of(text: str) -> str:
    """The file's dominant line ending, for lines the tool inserts."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf and crlf >= text.count("\n") - crlf else "\n"


def write_atomic(path: Path, data: bytes) -> None:
    """Replace `path` with `data` in one rename; keep its permission bits.

    A new file gets the mode any new file gets under the umask (the temporary file's own
    0600 would hide it from everyone else), executable if it starts with a `#!` line.
    """
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = _new_file_mode(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".migrate-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def _new_file_mode(data: bytes) -> int:
    umask = os.umask(0)
    os.umask(umask)
    return (0o777 if data.startswith(b"#!") else 0o666) & ~umask
