"""The layers of `migrator/` stay visible: imports go downward only and never round in a loop.

Read statically with the stdlib `ast` (every import, including those inside functions and
under `TYPE_CHECKING`), so nothing of the tool is imported to check it. Lowest layer first:

    migrator (the package: `__version__`) -> data -> core -> analysis -> formats
    -> contract -> engine -> output -> api -> doctor -> cli

`migrator.api` is the Python API (what the command does, without printing); nothing of the
tool imports it.

`migrator.doctor` (`migrate doctor`) sits at the command level: the CLI registers it, and it
runs the engine in-process for its `migrate --check` check; nothing below imports it.

`migrator.data` (the released API surface of torch-npu and torch, as data) imports nothing
of the tool, so the emulator reads it too.

Rules (`rules/`) and profile rules (`target_dit4dit/`) build on core, analysis, formats and
contract only. The static tool never imports the emulator (`npu_emulator`, a package of its
own) or torch; it reaches the emulator only through the `run` subprocess (and the DiT4DiT
smoke, outside `migrator/`, through the emulator's stdlib-only `emulation_env`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LAYERS = (
    "migrator",
    "migrator.data",
    "migrator.core",
    "migrator.analysis",
    "migrator.formats",
    "migrator.contract",
    "migrator.engine",
    "migrator.output",
    "migrator.api",
    "migrator.doctor",
    "migrator.cli",
)
# The highest layer rules and profile rules may import.
RULE_TOP = LAYERS.index("migrator.contract")
EMULATOR = "npu_emulator"
NEVER_IN_THE_TOOL = ("torch", "torch_npu", EMULATOR)
# Imports that break a rule above and are known; each must still exist, so the list shrinks.
# The DiT4DiT migration report step and the generic profile's NPU_MIGRATION.md step render
# their bodies with the run report's Markdown (grouped by action).
KNOWN = {
    ("target_dit4dit.migration_report", "migrator.output.report"),
    ("rules.steps.migration_notes", "migrator.output.migration_notes"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for top in ("migrator", "rules", "target_dit4dit"):
        for path in sorted((ROOT / top).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _imported(name: str, path: Path, modules: dict[str, Path]) -> Iterator[str]:
    """Every dotted name `name`'s module imports.

    `from a import b` gives `a.b` where `b` is a module, else `a` (a name `a` defines).
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = parts[: len(parts) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                if child in modules or _inside(child, NEVER_IN_THE_TOOL):
                    yield child
                else:
                    yield base


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Module -> the scanned modules it imports, and module -> every name it imports."""
    modules = _modules()
    edges: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    for name, path in modules.items():
        names[name] = set(_imported(name, path, modules))
        edges[name] = {target for target in names[name] if target in modules and target != name}
    return edges, names


def _layer(module: str) -> int | None:
    """Index in LAYERS of the layer `module` belongs to (the longest match), or None."""
    best: int | None = None
    for index, layer in enumerate(LAYERS):
        if module == layer or (layer != "migrator" and module.startswith(layer + ".")):
            best = index
    if best is None and module == "migrator.__main__":
        best = LAYERS.index("migrator.cli")
    return best


def _inside(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_tool_module_sits_in_a_layer() -> None:
    edges, _ = _graph()
    loose = [m for m in edges if m.startswith("migrator") and _layer(m) is None]
    assert not loose, f"modules of migrator/ outside every layer package: {loose}"


def test_no_module_imports_round_in_a_loop() -> None:
    edges, _ = _graph()
    assert _cycles(edges) == []


def test_the_tool_imports_only_downward() -> None:
    edges, _ = _graph()
    upward = [
        f"{source} -> {target}"
        for source, targets in edges.items()
        if source.startswith("migrator")
        for target in sorted(targets)
        if _layer(target) is None or _layer(target) > _layer(source)  # type: ignore[operator]
    ]
    assert upward == []


def test_rules_and_profiles_build_on_the_contract_only() -> None:
    edges, _ = _graph()
    reached = {
        (source, target)
        for source, targets in edges.items()
        if source.startswith(("rules", "target_dit4dit"))
        for target in targets
        if target.startswith("migrator") and (_layer(target) or 0) > RULE_TOP
    }
    assert reached - KNOWN == set()
    assert KNOWN - reached == set(), "a known exception is gone: drop it from KNOWN"


def test_the_static_tool_never_imports_the_emulator_or_torch() -> None:
    _, names = _graph()
    bad = [
        f"{source} -> {name}"
        for source, imported in names.items()
        if source.startswith("migrator")
        for name in sorted(imported)
        if _inside(name, NEVER_IN_THE_TOOL)
    ]
    assert bad == []


def test_the_check_sees_an_upward_import_and_a_loop() -> None:
    """The checks themselves: a made-up engine -> cli import is upward and closes a loop."""
    edges, _ = _graph()
    assert edges["migrator.cli"] & {"migrator.engine.session"}
    edges["migrator.engine.session"].add("migrator.cli")
    assert _layer("migrator.cli") > _layer("migrator.engine.session")  # type: ignore[operator]
    assert any("migrator.cli" in cycle for cycle in _cycles(edges))
