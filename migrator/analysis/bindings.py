"""Module-level name bindings, read with the stdlib `ast` so both engine paths share them.

Rules resolve `th.autocast` to `torch.autocast` through these bindings plus the local
scopes that `migrator.analysis.scopes` tracks while a rule walks a LibCST tree. A name counts
as an import only when every module-level binding of it imports the same thing; a fallback
assignment does not spoil it when it stands where the import failed or was skipped (the
optional-import idioms): in an `except` handler of a `try` that imports the name, or in the
`else` branch of an `if is_<x>_available():` test whose body imports it.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

# A non-import binding (assignment, def, parameter...) is recorded as None.
Binding = str | None

# A name in an `if` test that says an optional package can be imported (transformers'
# `is_flash_attn_2_available()`), or `TYPE_CHECKING`.
AVAILABILITY = re.compile(r"^is_\w*available$|^TYPE_CHECKING$")


@dataclass(frozen=True)
class ModuleBindings:
    """Which module-level names are imports, and of what."""

    names: Mapping[str, tuple[Binding, ...]]
    star_imports: tuple[str, ...] = ()

    def resolve(self, name: str) -> str | None:
        """The dotted name `name` imports, or None if it is not (only) an import."""
        bound = self.names.get(name)
        if not bound:
            return None
        first = bound[0]
        if first is None or any(other != first for other in bound[1:]):
            return None
        return first

    def names_for(self, qualified: str) -> list[str]:
        """Local names that resolve exactly to `qualified` (e.g. all aliases of torch)."""
        return sorted(name for name in self.names if self.resolve(name) == qualified)

    def is_bound(self, name: str) -> bool:
        return name in self.names

    @functools.cached_property
    def imports(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each name an import binds, with the dotted names bound to it (the names that
        bind nothing dotted left out: a notebook's later cells inherit thousands)."""
        found = []
        for name, values in self.names.items():
            dotted = tuple(value for value in values if value)
            if dotted:
                found.append((name, dotted))
        return tuple(found)


EMPTY = ModuleBindings(MappingProxyType({}))


def import_bindings(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    """(local name, dotted name) pairs an import statement binds."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield alias.asname, alias.name
            else:
                head = alias.name.split(".", 1)[0]
                yield head, head
        return
    module = "." * node.level + (node.module or "")
    for alias in node.names:
        if alias.name == "*":
            continue
        dotted = (
            f"{module}.{alias.name}" if module and not module.endswith(".") else module + alias.name
        )
        yield alias.asname or alias.name, dotted


def imported_names(body: list[ast.stmt]) -> frozenset[str]:
    """Names the import statements directly in `body` bind."""
    return frozenset(
        name
        for inner in body
        if isinstance(inner, (ast.Import, ast.ImportFrom))
        for name, _ in import_bindings(inner)
    )


def dotted_parts(node: ast.expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"] for Name/Attribute chains, else None (the stdlib-`ast`
    twin of `migrator.analysis.cst_helpers.dotted_name`)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def is_availability_test(test: ast.expr) -> bool:
    """Whether an `if` test asks if an optional package is there (`is_x_available()`)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Name) and AVAILABILITY.match(node.id):
            return True
        if isinstance(node, ast.Attribute) and AVAILABILITY.match(node.attr):
            return True
    return False


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


class _Collector:
    def __init__(self) -> None:
        self.names: dict[str, list[Binding]] = {}
        self.fallback: dict[str, int] = {}
        self.stars: list[str] = []

    def bind(self, name: str, value: Binding) -> None:
        self.names.setdefault(name, []).append(value)

    def statements(self, body: list[ast.stmt], imported_in_try: frozenset[str]) -> None:
        for stmt in body:
            self.statement(stmt, imported_in_try)

    def statement(self, stmt: ast.stmt, imported_in_try: frozenset[str]) -> None:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                self.stars.append("." * stmt.level + (stmt.module or ""))
            for name, dotted in import_bindings(stmt):
                self.bind(name, dotted)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.bind(stmt.name, None)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                for name in _target_names(target):
                    self._assign(name, imported_in_try)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            for name in _target_names(stmt.target):
                self._assign(name, imported_in_try)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            for name in _target_names(stmt.target):
                self.bind(name, None)
            self.statements(stmt.body, frozenset())
            self.statements(stmt.orelse, frozenset())
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    for name in _target_names(item.optional_vars):
                        self.bind(name, None)
            self.statements(stmt.body, frozenset())
        elif isinstance(stmt, ast.If) and is_availability_test(stmt.test):
            self.statements(stmt.body, frozenset())
            self.statements(stmt.orelse, imported_names(stmt.body))
        elif isinstance(stmt, (ast.If, ast.While)):
            self.statements(stmt.body, frozenset())
            self.statements(stmt.orelse, frozenset())
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self._try(stmt)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                for name in _target_names(target):
                    self.bind(name, None)

    def _try(self, stmt: ast.stmt) -> None:
        body: list[ast.stmt] = getattr(stmt, "body", [])
        imported = imported_names(body)
        self.statements(body, frozenset())
        for handler in getattr(stmt, "handlers", []):
            if handler.name:
                self.bind(handler.name, None)
            self.statements(handler.body, imported)
        self.statements(getattr(stmt, "orelse", []), frozenset())
        self.statements(getattr(stmt, "finalbody", []), frozenset())

    def _assign(self, name: str, imported_in_try: frozenset[str]) -> None:
        # `except ImportError: torch = None` keeps `torch` an import for resolution.
        if name not in imported_in_try:
            self.bind(name, None)


def module_bindings(tree: ast.Module) -> ModuleBindings:
    """Collect the module-level bindings of a parsed file."""
    collector = _Collector()
    collector.statements(tree.body, frozenset())
    frozen = {name: tuple(values) for name, values in collector.names.items()}
    return ModuleBindings(MappingProxyType(frozen), tuple(collector.stars))


def chain(earlier: ModuleBindings, later: ModuleBindings) -> ModuleBindings:
    """Bindings of code that runs after `earlier` in one namespace (notebook cells).

    A name both bind keeps both values, so it resolves only while they agree: a later
    `torch = None` makes `torch` unknown rather than wrongly resolved.
    """
    if not earlier.names:
        return later
    # A notebook's cells each chain all the names the cells before them bound: the copy is
    # one dict's, and the imports are carried on from the earlier ones, not read again
    # from every name (both were a cost in the square of the cells).
    names = dict(earlier.names)
    imports = dict(earlier.imports)
    for name, values in later.names.items():
        bound = names[name] = (*names.get(name, ()), *values)
        dotted = tuple(value for value in bound if value)
        if dotted:
            imports[name] = dotted
        else:
            imports.pop(name, None)
    stars = earlier.star_imports + later.star_imports
    chained = ModuleBindings(MappingProxyType(names), stars)
    # What `imports` gives of these names (`functools.cached_property` keeps it there).
    vars(chained)["imports"] = tuple(imports.items())
    return chained
