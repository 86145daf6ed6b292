"""The layers of `migrator/` stay visible: imports go downward only and never round in a loop.

Read statically with the stdlib `ast` (every import, including those inside functions and
under `TYPE_CHECKING`), so nothing of the tool is imported to check it. Lowest layer first:

    migrator (the package: `__version__`; `fast_dataclasses`, stdlib only) -> data -> core
    -> analysis -> formats -> contract -> engine -> output -> api -> doctor -> cli
    (with the command's entry points, `migrator.__main__` and `migrator.launch`)

`migrator.api` is the Python API (what the command does, without printing); nothing of the
tool imports it.

`migrator.doctor` (`migrate doctor`) sits at the command level: the CLI registers it, and it
runs the engine in-process for its `migrate --check` check; nothing below imports it.

`migrator.data` (the released API surface of torch-npu and torch, as data) imports nothing
of the tool, so the emulator reads it too.

Rules (`rules/`) and profile rules (`target_dit4dit/`) build on core, analysis, formats and
contract only. The static tool never imports the emulator (`npu_emulator`, a package of its
own) or torch; it reaches the emulator only through the `run` subprocess (and the DiT4DiT
smoke, `target_dit4dit.smoke`, through the emulator's stdlib-only `emulation_env`). The
emulator imports nothing of the tool but `migrator.data`, the stdlib-only loader of the
torch-npu API data.

An import of `a.b.c` also runs the `__init__` of `a` and `a.b`, so the loop check follows
those packages too (not the importer's own packages, which are already being imported).
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


def _packages_run(source: str, target: str) -> Iterator[str]:
    """`target` and the packages above it that importing it runs, but not `source`'s own."""
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        package = ".".join(parts[:cut])
        if cut < len(parts) and (source == package or source.startswith(package + ".")):
            break
        yield package


def _graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Module -> the scanned modules it imports, and module -> every name it imports."""
    modules = _modules()
    edges: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    for name, path in modules.items():
        names[name] = set(_imported(name, path, modules))
        edges[name] = {
            module
            for target in names[name]
            for module in _packages_run(name, target)
            if module in modules and module != name
        }
    return edges, names


def _emulator_imports() -> dict[str, set[str]]:
    """Emulator module -> the names of the tool (migrator, rules, target_dit4dit) it imports."""
    modules = _modules()
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / EMULATOR).rglob("*.py")):
        name = _module_name(path)
        found[name] = {
            imported
            for imported in _imported(name, path, modules)
            if _inside(imported, ("migrator", "rules", "target_dit4dit"))
        }
    return found


def _layer(module: str) -> int | None:
    """Index in LAYERS of the layer `module` belongs to (the longest match), or None."""
    best: int | None = None
    for index, layer in enumerate(LAYERS):
        if module == layer or (layer != "migrator" and module.startswith(layer + ".")):
            best = index
    if best is None and module in ("migrator.__main__", "migrator.launch"):
        best = LAYERS.index("migrator.cli")
    if best is None and module == "migrator.fast_dataclasses":
        best = LAYERS.index("migrator")
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
    _, names = _graph()
    reached = {
        (source, target)
        for source, targets in names.items()
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


def test_rules_and_profiles_never_import_the_emulator_or_torch() -> None:
    """Only the DiT4DiT smoke (a training run on the emulated NPU, not a migration step)
    reaches the emulator, through its stdlib-only `emulation_env`, and imports torch."""
    _, names = _graph()
    reached = {
        (source, name)
        for source, imported in names.items()
        if source.startswith(("rules", "target_dit4dit"))
        for name in imported
        if _inside(name, NEVER_IN_THE_TOOL)
    }
    smoke = {(s, n) for s, n in reached if _inside(s, ("target_dit4dit.smoke",))}
    assert reached - smoke == set()
    assert {n for _, n in smoke if _inside(n, (EMULATOR,))} == {"npu_emulator.emulation_env"}


def test_the_emulator_imports_only_the_api_data_of_the_tool() -> None:
    found = _emulator_imports()
    assert len(found) > 20, "the emulator's modules were not found"
    assert set().union(*found.values()) == {"migrator.data"}
    edges, _ = _graph()
    # The data loader itself imports nothing else of the tool (its package is `migrator`).
    assert edges["migrator.data"] <= {"migrator"}


def test_function_local_and_type_checking_imports_are_edges(tmp_path: Path) -> None:
    source = tmp_path / "fake.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from migrator.output import report\n"
        "def f():\n    from migrator.cli import main\n    import migrator.engine.session\n",
        encoding="utf-8",
    )
    imported = set(_imported("migrator.formats.fake", source, _modules()))
    assert {"migrator.output.report", "migrator.cli", "migrator.engine.session"} <= imported


def test_a_loop_through_a_package_init_is_a_loop() -> None:
    """`a.b.__init__` importing `a.c`, and `a.c` importing `a.b.x`, is a loop."""
    edges = {"a.b": {"a.c"}, "a.c": set(_packages_run("a.c", "a.b.x")), "a.b.x": set()}
    assert edges["a.c"] == {"a.b.x", "a.b"}
    assert _cycles(edges) == [["a.b", "a.c"]]
    # Within its own package a module does not re-run that package's `__init__`.
    assert list(_packages_run("a.b.y", "a.b.x")) == ["a.b.x"]


def test_the_check_sees_an_upward_import_and_a_loop() -> None:
    """The checks themselves: a made-up engine -> cli import is upward and closes a loop."""
    edges, _ = _graph()
    assert edges["migrator.cli"] & {"migrator.engine.session"}
    edges["migrator.engine.session"].add("migrator.cli")
    assert _layer("migrator.cli") > _layer("migrator.engine.session")  # type: ignore[operator]
    assert any("migrator.cli" in cycle for cycle in _cycles(edges))
