"""Jupyter notebooks: each code cell goes through the Python rules as if it were a file.

Only the `source` of code cells can change; outputs, metadata, cell ids and every other
byte of the JSON stay as they were. nbformat reads the notebook, and writes it back when it
reproduces the *unmodified* notebook's text byte for byte (true of anything Jupyter saved);
otherwise only the characters of the changed cells' `source` values are replaced, at their
JSON spans, in the layout the old value had. A notebook that needs no change is never a
failure, whatever its formatting.

IPython syntax is not Python: a `%%` cell magic on a cell's first line leaves that cell
alone; line magics, shell escapes and help (`%time f()`, `!pip ...`, `x = !ls`, `obj?`) are
masked with a placeholder statement of the same indentation while the rules run and put
back exactly afterwards. A cell that still does not parse is left alone with a note; the
rest of the notebook is migrated.

Changes are reported as `notebook.ipynb:cell N:line:col`, counting every cell from 1.
"""

from __future__ import annotations

import ast
import json
import logging
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from migrator.analysis.ast_lines import indentation
from migrator.analysis.bindings import EMPTY, ModuleBindings, chain, module_bindings
from migrator.core.model import WARNING_NOTE, FileResult, Finding, Outcome, Status, settled
from migrator.formats.json_spans import JSONSpanError, Span, spans
from migrator.formats.sources import SourceError, split_lines

SUFFIX = ".ipynb"
_PLACEHOLDER = "__npu_migrator_ipython_line_{}__"
_PLACEHOLDER_LINE = re.compile(r"^([ \t]*)__npu_migrator_ipython_line_(\d+)__(\r\n|\r|\n)?$")
_MAGIC = re.compile(
    r"^[ \t]*(?:[%!?]|[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*[%!])"
    r"|\?[ \t]*(?:\r\n|\r|\n)?$"
)


# What a CUDA project's cell magics and shell escapes name: the rules never read those lines.
_CUDA_WORD = re.compile(
    r"(?<![\w-])(cuda\w*|cudnn\w*|nccl\w*|nvidia-smi|nvcc)(?![\w-])",
    re.IGNORECASE,
)


def _unread_cuda(number: int, lines: Sequence[tuple[int, str]], what: str) -> list[str]:
    """One warning note for the first line the rules cannot read that names CUDA."""
    for line_number, line in lines:
        found = _CUDA_WORD.search(line)
        if found is not None:
            return [
                f"{WARNING_NOTE}cell {number}:{line_number}: {what} is left alone but names "
                f"CUDA ({found.group(0)!r}): migrate it by hand"
            ]
    return []


# (cell text, names bound by the cells before it) -> outcome
RunCell = Callable[[str, ModuleBindings], Outcome]


@dataclass
class _Found:
    findings: list[Finding] = field(default_factory=list)
    unused: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    added: int = 0
    removed: int = 0


def _parses(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
        except (SyntaxError, ValueError):
            return False
    return True


def mask(source: str) -> tuple[str, list[str]]:
    """The cell with IPython-only lines replaced by placeholders, and the lines replaced."""
    if _parses(source):
        return source, []
    lines = split_lines(source)
    hidden: list[str] = []
    out: list[str] = []
    continued = False
    for line in lines:
        if continued or _MAGIC.search(line):
            body = line.rstrip("\r\n")
            indent = indentation(body)
            ending = line[len(body) :]
            out.append(f"{indent}{_PLACEHOLDER.format(len(hidden))}{ending}")
            hidden.append(line)
            continued = body.endswith("\\")
        else:
            out.append(line)
    return "".join(out), hidden


def unmask(text: str, hidden: Sequence[str]) -> str | None:
    """Put the IPython lines back; None if the placeholders did not survive intact."""
    if not hidden:
        return text
    seen: list[int] = []
    out: list[str] = []
    for line in split_lines(text):
        match = _PLACEHOLDER_LINE.match(line)
        if match is None:
            out.append(line)
            continue
        index = int(match.group(2))
        if index >= len(hidden):
            return None
        seen.append(index)
        out.append(hidden[index])
    return "".join(out) if sorted(seen) == list(range(len(hidden))) else None


def _bindings(text: str) -> ModuleBindings:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return module_bindings(ast.parse(text))
        except (SyntaxError, ValueError):
            return EMPTY


def _cell(
    number: int, source: str, run_cell: RunCell, found: _Found, inherited: ModuleBindings
) -> tuple[str, ModuleBindings]:
    """The cell's new source (the old one when it is left alone) and the names bound so far.

    Cells share one namespace, so a cell sees the imports of the cells above it.
    """
    numbered = list(enumerate(split_lines(source), start=1))
    if source.lstrip().startswith("%%"):
        found.notes.append(f"cell {number} left alone: a %% cell magic")
        magic = source.lstrip().split(None, 1)[0]
        found.notes += _unread_cuda(number, numbered, f"a {magic} cell magic")
        return source, inherited
    masked, hidden = mask(source)
    escaped = set(hidden)
    found.notes += _unread_cuda(
        number, [(n, line) for n, line in numbered if line in escaped], "an IPython line"
    )
    bound = chain(inherited, _bindings(masked))
    try:
        outcome = run_cell(masked, inherited)
    except SourceError as error:
        found.notes.append(f"cell {number} left alone: {error}")
        return source, bound
    new = unmask(outcome.text, hidden)
    if new is None:
        found.notes.append(f"cell {number} left alone: a rule rewrote an IPython line")
        return source, bound
    found.findings += [item.in_cell(number) for item in outcome.findings]
    found.unused += [item.in_cell(number) for item in outcome.unused_suppressions]
    found.added += outcome.todos_added
    found.removed += outcome.todos_removed
    return new, bound


def cell_code(data: bytes) -> str:
    """The code cells' sources joined (what the rules would read), for a cheap pre-filter;
    the whole text when the file is no JSON notebook, so a real read reports it."""
    try:
        document = json.loads(data)
        cells = document.get("cells", []) if isinstance(document, dict) else []
        sources = [
            cell.get("source", "")
            for cell in cells
            if isinstance(cell, dict) and cell.get("cell_type") == "code"
        ]
        return "\n".join(
            "".join(source) if isinstance(source, list) else str(source) for source in sources
        )
    except (ValueError, TypeError, AttributeError):
        return data.decode("utf-8", "replace")


def _serialise(notebook: Any, original: str) -> str:
    import nbformat

    text: str = cast(Any, nbformat).writes(notebook)
    # nbformat.write (what Jupyter saves with) adds the final newline that writes() lacks.
    if original.endswith("\n") and not text.endswith("\n"):
        text += "\n"
    return text


def _read(text: str) -> tuple[Any, str | None]:
    """The notebook and its validation problem (None when valid)."""
    import nbformat

    captured: dict[str, Exception] = {}
    logger = logging.getLogger("traitlets")
    previous = logger.disabled
    logger.disabled = True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            notebook = cast(Any, nbformat).reads(
                text, as_version=nbformat.NO_CONVERT, capture_validation_error=captured
            )
    finally:
        logger.disabled = previous
    problem = captured.get("ValidationError")
    return notebook, None if problem is None else str(problem).split("\n", 1)[0]


def migrate_notebook(rel: str, data: bytes, run_cell: RunCell) -> FileResult:
    """Migrate the code cells of a notebook; see the module docstring."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return FileResult(rel, Status.FAILED, error=f"cannot decode as UTF-8 (byte {error.start})")
    try:
        notebook, invalid = _read(text)
    except Exception as error:  # nbformat raises many kinds for a file that is not one
        reason = str(error).split("\n", 1)[0] or type(error).__name__
        return FileResult(rel, Status.FAILED, error=f"not a Jupyter notebook: {reason}")
    found = _Found()
    changed = False
    new_sources: dict[int, str] = {}
    if notebook.get("nbformat", 0) < 4:
        found.notes.append("nbformat 3 or older: not migrated (open and save it in Jupyter)")
    else:
        inherited = EMPTY
        for number, cell in enumerate(notebook.get("cells", []), start=1):
            if cell.get("cell_type") != "code" or not isinstance(cell.get("source"), str):
                continue
            new, inherited = _cell(number, cell.source, run_cell, found, inherited)
            if new != cell.source:
                cell.source = new
                new_sources[number - 1] = new
                changed = True
    new_data = None
    if changed:
        if invalid is not None:
            problem = f"not a valid notebook ({invalid}); left unchanged"
            return FileResult(rel, Status.FAILED, error=problem, notes=tuple(found.notes))
        if _serialise(_read(text)[0], text) == text:
            new_data = _serialise(notebook, text).encode("utf-8")
        else:
            # JSON that nbformat would reformat (not saved by Jupyter): edit only the
            # characters of the changed cells' sources, so every other byte stays.
            edited = edit_sources(text, new_sources)
            if edited is None:
                cells = ", ".join(str(index + 1) for index in sorted(new_sources))
                problem = (
                    f"cells {cells} need changes, but neither nbformat nor an in-place edit "
                    "of the JSON can write them without changing other bytes; left unchanged"
                )
                return FileResult(rel, Status.FAILED, error=problem, notes=tuple(found.notes))
            new_data = edited.encode("utf-8")
    key = _order
    return FileResult(
        rel,
        Status.CHANGED if new_data is not None else Status.UNCHANGED,
        data if new_data is not None else None,
        new_data,
        settled(found.findings, key=key),
        tuple(sorted(found.unused, key=key)),
        notes=tuple(found.notes),
        todos_added=found.added,
        todos_removed=found.removed,
    )


def edit_sources(text: str, new_sources: dict[int, str]) -> str | None:
    """`text` with the sources of these cells (by 0-based index) replaced at their JSON
    spans, in the layout the old value had (a string, or a list of lines with its own
    indentation and escaping); None when the result would not be exactly that notebook."""
    try:
        found = spans(text)
    except JSONSpanError:
        return None
    edits: list[tuple[int, int, str]] = []
    for index, source in new_sources.items():
        span = found.get(("cells", index, "source"))
        if span is None:
            return None
        edits.append((span.start, span.end, _layout(text, found, index, span, source)))
    new = text
    for start, end, value in sorted(edits, reverse=True):
        new = new[:start] + value + new[end:]
    try:
        before, after = json.loads(text), json.loads(new)
    except ValueError:
        return None
    for index, source in new_sources.items():
        value = after["cells"][index]["source"]
        if ("".join(value) if isinstance(value, list) else value) != source:
            return None
        before["cells"][index]["source"] = value
    return new if before == after else None


def _layout(
    text: str, found: dict[tuple[str | int, ...], Span], index: int, span: Span, source: str
) -> str:
    old = text[span.start : span.end]
    # Escape non-ASCII as the file does: raw if it has any raw, escaped if it escapes.
    ascii_only = not any(ord(char) > 127 for char in old) and "\\u" in old
    if not isinstance(span.value, list):
        return json.dumps(source, ensure_ascii=ascii_only)
    # Lines split at \n only, as nbformat splits them.
    lines = re.findall(r"[^\n]*\n|[^\n]+$", source)
    items = [json.dumps(line, ensure_ascii=ascii_only) for line in lines]
    if not items:
        return "[]"
    path = ("cells", index, "source")
    count = len(span.value)
    if count == 0:
        opening, closing, separator = "", "", ", "
    else:
        keys = [(*path, position) for position in range(count)]
        first, last = found[keys[0]], found[keys[-1]]
        opening = text[span.start + 1 : first.start]
        closing = text[last.end : span.end - 1]
        if count > 1:
            separator = text[first.end : found[keys[1]].start]
        else:
            separator = "," + opening if opening else ", "
    return "[" + opening + separator.join(items) + closing + "]"


def _order(item: Finding) -> tuple[int, int, int, str]:
    return (item.cell or 0, item.line, item.col, item.code)
