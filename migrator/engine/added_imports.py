"""Imports the rules ask for, added to a module as LibCST's `AddImportsVisitor` adds them.

`AddImportsVisitor` lives in `libcst.codemod`, which imports `libcst.matchers`: 0.17 CPU s
of start-up, the largest single cost of a small run that adds an import (DiT4DiT's), paid
again by every worker process. `added` makes the same module from the same requests with
LibCST's nodes and `parse_statement` alone; `tests/test_added_imports.py` holds the two
equal over module heads and requests of every shape this handles. A request it is not
written for (dropping an import, a module that is not a plain dotted name, `__future__`)
gets None, and the caller uses the visitor.

What the visitor does, and so this:

- The module's top imports are the statements after a leading docstring (a plain string)
  or `__strict__ = ...` up to the first statement that is not one import alone on its
  line. What they import already is not added again: `import a` for `import a`, `import
  a as b` for the same alias, `from a import b [as c]` for the same name (and alias), or
  for any name where a top `from a import *` is.
- A name from a module that a top `from module import ...` imports (no star) is put at
  the front of the first such statement, plain names sorted, then aliased ones sorted.
- Everything else is inserted after the top imports, in this order: `import m` (sorted),
  `import m as a` (in the requests' order), then one `from m import ...` per module (the
  modules with an aliased name first, each group sorted; names sorted); and a blank line
  before the statement that follows, unless it has one or starts with a blank line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from migrator.analysis.cst_helpers import dotted_name
from migrator.contract.rule import ImportRequest

_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def added(module: cst.Module, requests: Sequence[ImportRequest]) -> cst.Module | None:
    """`module` with `requests` (each once, in order) added as `AddImportsVisitor` adds
    them; None where a request is one this is not written for."""
    for request in requests:
        if (
            request.remove
            or request.module == "__future__"
            or _DOTTED.fullmatch(request.module) is None
            or (request.name is not None and not request.name.isidentifier())
            or (request.asname is not None and not request.asname.isidentifier())
        ):
            return None
    requests = list(dict.fromkeys(requests))
    # The visitor's four tables: modules to import plain, module -> names to import plain
    # from it (modules sorted), module -> its alias, module -> (name, alias) pairs.
    modules = {r.module for r in requests if r.name is None and r.asname is None}
    names: dict[str, set[str]] = {
        m: {r.name for r in requests if r.module == m and r.name and r.asname is None}
        for m in sorted({r.module for r in requests if r.name is not None and r.asname is None})
    }
    module_aliases = {r.module: r.asname for r in requests if r.name is None and r.asname}
    aliased: dict[str, list[tuple[str, str]]] = {
        m: [(r.name, r.asname) for r in requests if r.module == m and r.name and r.asname]
        for m in sorted({r.module for r in requests if r.name is not None and r.asname})
    }
    start = 1 if _skip_first(module) else 0
    end = start
    tops: list[cst.Import | cst.ImportFrom] = []
    for statement in module.body[start:]:
        small = _one_import(statement)
        if small is None:
            break
        tops.append(small)
        end += 1
    # What the top imports import already, gathered as the visitor gathers it (a later
    # alias of a module replaces an earlier one; a star import stands for every name).
    have_modules: set[str] = set()
    have_aliases: dict[str, str] = {}
    have_pairs: dict[str, list[tuple[str, str]]] = {}
    have_names: dict[str, set[str]] = {}
    for small in tops:
        if isinstance(small, cst.Import):
            for alias in small.names:
                name, asname = alias.evaluated_name, alias.evaluated_alias
                if asname is None:
                    have_modules.add(name)
                else:
                    have_aliases[name] = asname
            continue
        source = _absolute(small)
        if source is None:
            continue
        if isinstance(small.names, cst.ImportStar):
            have_names[source] = {"*"}
            continue
        pairs = [
            (alias.evaluated_name, asname)
            for alias in small.names
            if (asname := alias.evaluated_alias) is not None
        ]
        if pairs:
            have_pairs.setdefault(source, []).extend(pairs)
        objects = {alias.evaluated_name for alias in small.names if alias.asname is None}
        if objects:
            held = have_names.setdefault(source, set())
            if "*" not in held:
                held.update(objects)
    modules -= have_modules
    for name, asname in have_aliases.items():
        if module_aliases.get(name) == asname:
            del module_aliases[name]
    for source, pairs in have_pairs.items():
        for pair in pairs:
            if source in aliased and pair in aliased[source]:
                aliased[source].remove(pair)
                if not aliased[source]:
                    del aliased[source]
    for source, objects in have_names.items():
        if source not in names:
            continue
        if "*" in objects:
            del names[source]
        else:
            names[source] -= objects
            if not names[source]:
                del names[source]
    if not (modules or names or module_aliases or aliased):
        return module
    # Names from a module a top from-import already imports join its first such import.
    merged: dict[int, cst.ImportFrom] = {}
    for small in tops:
        if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
            continue
        source = _absolute(small)
        if source is None or (source not in names and source not in aliased):
            continue
        plain_names = sorted(names.pop(source, ()))
        aliased_names = sorted(aliased.pop(source, ()))
        merged[id(small)] = small.with_changes(
            names=[
                *(cst.ImportAlias(name=cst.Name(name)) for name in plain_names),
                *(
                    cst.ImportAlias(name=cst.Name(name), asname=cst.AsName(name=cst.Name(alias)))
                    for name, alias in aliased_names
                ),
                *small.names,
            ]
        )
    body = list(module.body)
    if merged:
        for index in range(start, end):
            line = body[index]
            assert isinstance(line, cst.SimpleStatementLine)
            changed = merged.get(id(line.body[0]))
            if changed is not None:
                body[index] = line.with_changes(body=[changed])
    if not (modules or names or module_aliases or aliased):
        return module.with_changes(body=body)
    after = body[end:]
    if after:
        first = after[0]
        if not first.leading_lines:
            after[0] = first.with_changes(leading_lines=(cst.EmptyLine(),))
        elif first.leading_lines[0].comment is not None:
            after[0] = first.with_changes(leading_lines=(cst.EmptyLine(), *first.leading_lines))
    froms: dict[str, list[tuple[str, str | None]]] = {}
    for source, pairs in aliased.items():
        froms.setdefault(source, []).extend(pairs)
    for source, objects in names.items():
        froms.setdefault(source, []).extend((name, None) for name in objects)
    config = module.config_for_parsing

    def parsed(code: str) -> cst.BaseStatement:
        return cst.parse_statement(code, config=config)

    new = [
        *(parsed(f"import {name}") for name in sorted(modules)),
        *(parsed(f"import {name} as {alias}") for name, alias in module_aliases.items()),
    ]
    for source, listed in froms.items():
        # The visitor sorts (name, alias) pairs; a name imported plain and aliased from
        # one module makes it raise TypeError, and so does this.
        spelled = (
            name if alias is None else f"{name} as {alias}" for name, alias in sorted(listed)
        )
        new.append(parsed(f"from {source} import " + ", ".join(spelled)))
    return module.with_changes(body=[*body[:end], *new, *after])


def _one_import(statement: cst.BaseStatement) -> cst.Import | cst.ImportFrom | None:
    """The import a statement line holds alone, or None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    return small if isinstance(small, (cst.Import, cst.ImportFrom)) else None


def _absolute(node: cst.ImportFrom) -> str | None:
    """The module a from-import names, None for a relative one (no package is known)."""
    if node.relative or node.module is None:
        return None
    return dotted_name(node.module)


def _skip_first(module: cst.Module) -> bool:
    """A leading docstring (one plain string) or `__strict__ = ...` stays first."""
    if not module.body:
        return False
    first = module.body[0]
    if not isinstance(first, cst.SimpleStatementLine) or len(first.body) != 1:
        return False
    small = first.body[0]
    if isinstance(small, cst.Expr):
        return isinstance(small.value, cst.SimpleString)
    return (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == "__strict__"
    )
