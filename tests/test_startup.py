"""Start-up: what a run imports, and the trigger index that lets it import little.

These tests assert which modules a fresh process loads (behaviour), never how long it
takes; the figures are `python benchmarks/bench.py --startup`'s.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from migrator.engine import index, registry
from migrator.engine.write_index import expected
from tests.helpers import commit_all, git_repo

# Never needed by `--version` or by a run over files no rule can act on.
HEAVY = (
    "libcst",
    "rich",
    "ruamel.yaml",
    "tomlkit",
    "nbformat",
    "migrator.contract.rule",
    "migrator.engine.python",
    "migrator.formats.notebook",
    "migrator.output.sarif",
    "migrator.output.docs",
    "migrator.doctor.checks",
    "packaging.requirements",
    # The default release is chosen by the data file's release numbers.
    "packaging.version",
    # Read only where a file needs them (a shell script, a requirements file, a JSON
    # config, --annotate).
    "migrator.formats.shell",
    "migrator.formats.requirements",
    "migrator.formats.json_spans",
    "migrator.engine.annotate",
)


def _loaded(cwd: Path, *args: str) -> list[str]:
    """The modules a `migrate ARGS` run in a fresh process (in `cwd`) has loaded."""
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['migrate', *{list(args)!r}]\n"
        "try:\n"
        "    runpy.run_module('migrator', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=cwd
    )
    found: list[str] = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    return found


def _rule_modules() -> set[str]:
    return {entry.module for entry in registry.catalog().entries}


def _heavy(loaded: list[str]) -> list[str]:
    return sorted(
        name
        for name in loaded
        if name in _rule_modules() or any(name == h or name.startswith(h + ".") for h in HEAVY)
    )


def test_version_imports_no_rule_and_no_libcst(tmp_path: Path) -> None:
    assert _heavy(_loaded(tmp_path, "--version")) == []


def test_a_run_over_files_no_rule_can_act_on_imports_no_rule_and_no_libcst(
    tmp_path: Path,
) -> None:
    root = git_repo(tmp_path / "proj")
    (root / "x.py").write_text("x = 1\n")
    (root / "notes.md").write_text("Nothing to see.\n")
    commit_all(root)
    assert _heavy(_loaded(root, ".", "--dry-run")) == []
    assert _heavy(_loaded(root, ".", "--dry-run", "--no-cache", "--select", "NPU0")) == []
    # A bare folder name may name a profile package's command: still no rule is imported.
    assert _heavy(_loaded(tmp_path, "proj", "--dry-run")) == []


@pytest.mark.parametrize(
    ("text", "acting"),
    [
        ("import torch\nx = torch.zeros(2).cuda()\n", "rules.cuda_method"),
        ("import pynvml\n\npynvml.nvmlInit()\n", "rules.pynvml"),  # a warning
    ],
    ids=["an_edit", "a_warning"],
)
def test_a_run_over_one_small_file_imports_only_the_rules_its_text_can_trigger(
    tmp_path: Path, text: str, acting: str
) -> None:
    root = git_repo(tmp_path / "proj")
    (root / "b.py").write_text(text)
    commit_all(root)
    loaded = set(_loaded(root, "b.py", "--dry-run", "--no-cache"))
    assert "libcst" in loaded
    catalog = registry.catalog()
    triggered = {e.module for e in catalog.entries if e.trigger.matches(text)}
    assert acting in loaded & triggered, "the rule that acts was imported"
    assert loaded & _rule_modules() <= triggered
    assert "rules.op_without_npu_kernel" not in loaded
    # The notes (NPU094) are written, without importing the dependency rules they name.
    assert {"rules.pyproject_dependencies", "tomlkit"}.isdisjoint(loaded)


def test_the_committed_trigger_indexes_are_current() -> None:
    for path, text in expected().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        assert current == text, (
            f"{path} is stale (a rule or its trigger changed): run "
            f"`{index.COMMAND}` and commit the result"
        )


def test_the_indexes_describe_every_rule_as_its_class_does() -> None:
    loaded = registry.load()
    catalog = registry.from_indexes()
    assert [entry.code for entry in catalog.entries] == [rule.code for rule in loaded.rules]
    for rule in loaded.rules:
        entry = catalog.by_code(rule.code)
        assert entry is not None and entry.rule is None and entry.load() is rule
        assert (entry.name, entry.priority, entry.package) == (
            rule.name,
            rule.priority,
            loaded.packages[rule],
        )
        for name in ("tokens", "patterns", "needs", "unit", "paths", "files", "notebooks"):
            assert getattr(entry.trigger, name) == getattr(rule.trigger, name), rule.code
        assert (entry.trigger.always is None) == (rule.trigger.always is None), rule.code
        assert entry.action == getattr(rule, "action", None), rule.code
    for profile in loaded.profiles:
        assert [e.code for e in catalog.for_profile(profile)] == [
            r.code for r in loaded.for_profile(profile)
        ]
    assert catalog.codes == loaded.codes and dict(catalog.aliases) == dict(loaded.aliases)
    assert catalog.commands == loaded.commands


def test_a_package_without_a_usable_index_is_read_by_importing_its_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry.from_indexes.cache_clear()
    monkeypatch.setattr(index, "read", lambda package, folder, current=None: None)
    try:
        fallback = registry.from_indexes()
    finally:
        registry.from_indexes.cache_clear()
    loaded = registry.load()
    assert [entry.code for entry in fallback.entries] == [rule.code for rule in loaded.rules]
    assert all(entry.rule is entry.load() for entry in fallback.entries)


def test_an_index_older_than_its_package_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "a_rule.py").write_text("CODE = 1\n")
    body = {"digest": index.digest(tmp_path), "rules": []}
    (tmp_path / index.INDEX_FILE).write_text(json.dumps(body))
    assert index.read("pkg", tmp_path) == []
    (tmp_path / "a_rule.py").write_text("CODE = 2\n")
    assert index.read("pkg", tmp_path) is None, "a changed module makes the index stale"
    body = {"digest": index.digest(tmp_path), "rules": [{"code": "TST001"}]}
    (tmp_path / index.INDEX_FILE).write_text(json.dumps(body))
    assert index.read("pkg", tmp_path) is None, "an index in another format is not read"
    (tmp_path / index.INDEX_FILE).unlink()
    assert index.read("pkg", tmp_path) is None


def test_an_always_function_inside_a_class_cannot_be_indexed() -> None:
    class Holder:
        @staticmethod
        def always(view: object) -> bool:
            return True

    with pytest.raises(index.IndexWriteError, match="module-level function"):
        index._reference(Holder.always, "here")


def test_the_notes_step_knows_the_notes_path_and_the_codes_of_the_rules_it_reads() -> None:
    from migrator.output import migration_notes as output
    from rules.cuda_requirements import CudaRequirements
    from rules.entry_point_setup import EntryPointSetup
    from rules.pyproject_dependencies import PyprojectDependencies
    from rules.steps import migration_notes as step

    assert step.PATH == output.PATH
    assert EntryPointSetup.code == step.ENTRY_SETUP
    assert (CudaRequirements.code, PyprojectDependencies.code) == step.DEPENDENCIES


def test_a_run_over_files_no_rule_can_act_on_imports_no_importlib_metadata(
    tmp_path: Path,
) -> None:
    root = git_repo(tmp_path / "proj")
    (root / "x.py").write_text("x = 1\n")
    commit_all(root)
    loaded = _loaded(root, ".", "--dry-run")
    # The entry points and the libraries' releases come from `migrator.engine.distributions`.
    assert "migrator.engine.distributions" in loaded
    assert [name for name in loaded if name.startswith(("importlib.metadata", "email"))] == []
    # Nor what only a write, a copy, a pool, a pinned requirement or a machine format needs,
    # nor platformdirs (the cache folder is read as it would answer, on Linux).
    lazy = {"socket", "secrets", "shutil", "tempfile", "multiprocessing", "tomllib"}
    lazy |= {"packaging.tags", "packaging.specifiers", "configparser", "difflib"}
    lazy |= {"migrator.engine.writes", "migrator.output.findings", "migrator.output.actions"}
    if sys.platform.startswith("linux"):
        lazy.add("platformdirs")
    assert sorted(lazy.intersection(loaded)) == []
