"""Codes are a public interface: every code a report can show is a registered, explainable
item (rules and profile steps alike), and a retired code keeps working as an alias."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from migrator.engine import registry
from tests.dit4dit_checkout import checkout
from tests.helpers import AUTOCAST, invoke

ROOT = Path(__file__).resolve().parents[1]
CODE = re.compile(r"[A-Z]{3}\d{3}")
STEPS = ("DIT090", "DIT091", "DIT092", "DIT093", "DIT094")


def _code_literals() -> dict[str, str]:
    """Every string constant that is exactly a code, in the tool's own sources."""
    found: dict[str, str] = {}
    for top in ("migrator", "rules", "target_dit4dit"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if "emulate" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                value = node.value if isinstance(node, ast.Constant) else None
                if isinstance(value, str) and CODE.fullmatch(value):
                    found[value] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def test_every_code_in_the_sources_is_registered() -> None:
    known = set(registry.load().codes)
    unknown = {code: where for code, where in _code_literals().items() if code not in known}
    assert unknown == {}


def test_profile_steps_are_registered_with_docstrings() -> None:
    loaded = registry.load()
    for code in STEPS:
        step = loaded.step(code)
        assert step is not None, code
        assert step.summary and len(step.explain()) > 100, code


@pytest.mark.parametrize("code", STEPS)
def test_explain_knows_the_profile_steps(code: str) -> None:
    result = invoke("--explain", code.lower())
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{code} ")
    assert "(profile step)" in result.stdout.splitlines()[0]


def test_list_rules_lists_the_profile_steps() -> None:
    listed = invoke("--list-rules").stdout
    for code in STEPS:
        assert re.search(rf"^{code}  \S+\s+always\s+step\s+target_dit4dit\s+\S", listed, re.M), code


def test_ignore_skips_a_profile_step(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    result = invoke(str(root), "--allow-no-vcs", "--ignore", "DIT091,DIT094")
    assert result.exit_code == 0, result.output
    assert not (root / "scripts/train_npu.sh").exists()
    assert not (root / "NPU_MIGRATION.md").exists()
    assert (root / "requirements-npu.txt").is_file()


def test_select_of_a_step_runs_only_that_step(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    result = invoke(str(root), "--select", "DIT093", "--dry-run")
    assert result.exit_code == 1, result.output
    assert "+++ b/requirements-npu.txt" in result.stdout
    assert "+++ b/scripts/train_npu.sh" not in result.stdout


@pytest.fixture
def retired(monkeypatch: pytest.MonkeyPatch) -> None:
    """NPU998 retired in favour of NPU001 (the autocast device rule)."""
    real = registry.load()
    fake = dataclasses.replace(real, aliases={"NPU998": "NPU001"})
    monkeypatch.setattr(registry, "load", lambda: fake)


@pytest.mark.usefixtures("retired")
def test_select_of_a_retired_code_warns_and_selects_its_successor(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(AUTOCAST)
    result = invoke(str(tmp_path), "--select", "NPU998", "--dry-run")
    assert result.exit_code == 1, result.output
    assert "warning: --select: NPU998 is now NPU001" in result.stderr
    assert ": NPU001 " in result.stderr


@pytest.mark.usefixtures("retired")
def test_a_suppression_naming_a_retired_code_still_suppresses_and_warns(tmp_path: Path) -> None:
    text = AUTOCAST.replace('("cuda"):', '("cuda"):  # migrate: ignore[NPU998]')
    (tmp_path / "train.py").write_text(text)
    for extra in ((), ("--full-parse",)):
        result = invoke(str(tmp_path), "--dry-run", "--select", "NPU001", *extra)
        assert "+++" not in result.stdout, result.output
        assert "ignore[NPU998]`: NPU998 is now NPU001" in result.stderr
        assert "unused" not in result.stderr.lower()
    assert (tmp_path / "train.py").read_text() == text


@pytest.mark.usefixtures("retired")
def test_a_config_that_ignores_a_retired_code_warns_and_ignores_its_successor(
    tmp_path: Path,
) -> None:
    (tmp_path / "train.py").write_text(AUTOCAST)
    (tmp_path / "pyproject.toml").write_text('[tool.migrate]\nignore = ["NPU998"]\n')
    result = invoke(str(tmp_path), "--dry-run")
    assert "NPU998 is now NPU001" in result.stderr, result.output
    assert "[tool.migrate]" in result.stderr
    assert ": NPU001 " not in result.stderr
    assert 'autocast("npu")' not in result.stdout


@pytest.mark.usefixtures("retired")
def test_explain_of_a_retired_code_explains_its_successor() -> None:
    result = invoke("--explain", "NPU998")
    assert result.exit_code == 0
    assert result.stdout.startswith("NPU001 ")


def test_an_alias_may_not_reuse_a_live_code() -> None:
    rules = registry.load().rules
    with pytest.raises(registry.RegistryError, match="still a live code"):
        registry.validate(rules, (), {"NPU001": "NPU002"})
    with pytest.raises(registry.RegistryError, match="not a registered code"):
        registry.validate(rules, (), {"NPU997": "NPU996"})
