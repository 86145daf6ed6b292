"""Jupyter notebooks: each code cell goes through the Python rules as if it were a file.

Only the `source` of code cells can change; outputs, metadata, cell ids and every other
byte of the JSON stay as they were. nbformat reads the notebook, and writes it back only if
it reproduces the *unmodified* notebook's text byte for byte (true of anything Jupyter
saved); otherwise a notebook that needs changes is reported as failed and left alone.

IPython syntax is not Python: a `%%` cell magic on a cell's first line leaves that cell
alone; line magics, shell escapes and help (`%time f()`, `!pip ...`, `x = !ls`, `obj?`) are
masked with a placeholder statement of the same indentation while the rules run and put
back exactly afterwards. A cell that still does not parse is left alone with a note; the
rest of the notebook is migrated.

Changes are reported as `notebook.ipynb:cell N:line:col`, counting every cell from 1.
"""

from __future__ import annotations

import ast
import logging
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from migrator.analysis.bindings import EMPTY, ModuleBindings, chain, module_bindings
from migrator.core.model import FileResult, Finding, Outcome, Status, settled
from migrator.formats.sources import SourceError, split_lines

SUFFIX = ".ipynb"
_PLACEHOLDER = "__npu_migrator_ipython_line_{}__"
_PLACEHOLDER_LINE = re.compile(r"^([ \t]*)__npu_migrator_ipython_line_(\d+)__(\r\n|\r|\n)?$")
_MAGIC = re.compile(
    r"^[ \t]*(?:[%!?]|[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*[%!])"
    r"|\?[ \t]*(?:\r\n|\r|\n)?$"
)


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
            indent = body[: len(body) - len(body.lstrip(" \t"))]
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
    if source.lstrip().startswith("%%"):
        found.notes.append(f"cell {number} left alone: a %% cell magic")
        return source, inherited
    masked, hidden = mask(source)
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
                changed = True
    new_data = None
    if changed:
        problem = None
        if invalid is not None:
            problem = f"not a valid notebook ({invalid}); left unchanged"
        elif _serialise(_read(text)[0], text) != text:
            problem = (
                "nbformat cannot write this notebook back byte for byte (its JSON was not "
                "written by Jupyter); left unchanged: open and save it in Jupyter, then rerun"
            )
        if problem is not None:
            return FileResult(rel, Status.FAILED, error=problem, notes=tuple(found.notes))
        new_data = _serialise(notebook, text).encode("utf-8")
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


def _order(item: Finding) -> tuple[int, int, int, str]:
    return (item.cell or 0, item.line, item.col, item.code)
