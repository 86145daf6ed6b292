"""`[tool.migrate]` in pyproject.toml: found upwards from PATH, overridden by flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator.engine.config import Config, load
from tests.helpers import AUTOCAST, MIGRATED, invoke

pytestmark = pytest.mark.usefixtures("fixture_rules")

FLASH = "import flash_attn\n\n\ndef attend(q):\n    return flash_attn.flash_attn_func(q)\n"


def project(tmp_path: Path, table: str) -> Path:
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "p"\n\n[tool.migrate]\n{table}')
    (root / "pkg" / "train.py").write_text(AUTOCAST)
    return root


def test_ignore_from_config_and_a_flag_that_replaces_it(tmp_path: Path) -> None:
    root = project(tmp_path, 'ignore = ["NPU001"]\n')
    assert invoke(str(root), "--check").exit_code == 0
    replaced = invoke(str(root), "--check", "--ignore", "TST")
    assert replaced.exit_code == 1, "a flag replaces the configured list"


def test_select_from_config(tmp_path: Path) -> None:
    root = project(tmp_path, 'select = ["TST05"]\n')
    assert invoke(str(root), "--check").exit_code == 0
    assert invoke(str(root), "--check", "--select", "NPU").exit_code == 1


def test_nearest_pyproject_with_the_table_wins(tmp_path: Path) -> None:
    root = project(tmp_path, 'ignore = ["NPU001"]\n')
    (root / "pkg" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    result = invoke(str(root / "pkg"), "--check", "--verbose")
    assert result.exit_code == 0, "the inner pyproject has no [tool.migrate]: the outer applies"
    assert f"config: {root / 'pyproject.toml'}" in result.stderr
    (root / "pkg" / "pyproject.toml").write_text("[tool.migrate]\nselect = []\n")
    assert invoke(str(root / "pkg"), "--check").exit_code == 1


def test_no_config_found(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(AUTOCAST)
    assert load(tmp_path) == Config()
    result = invoke(str(tmp_path), "--check", "--verbose")
    assert "config: none" in result.stderr


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('selekt = ["NPU"]\n', "[tool.migrate] unknown key 'selekt' (known: annotate, entry,"),
        ('annotate = "yes"\n', "[tool.migrate] annotate must be true or false, not a string"),
        ('select = "NPU001"\n', "[tool.migrate] select must be a list of strings, not a string"),
        ("exclude = [1]\n", "[tool.migrate] exclude must be a list of strings, not a list"),
        ("profile = 3\n", "[tool.migrate] profile must be a string, not int"),
        ("transfer-to-npu = 0\n", "transfer-to-npu must be true or false, not int"),
        ('select = ["XYZ9"]\n', "[tool.migrate] select: unknown rule code or prefix 'XYZ9'"),
        ('profile = "nope"\n', "[tool.migrate] profile: unknown profile 'nope'"),
        ('entry = ["missing.py"]\n', "[tool.migrate] entry: missing.py: an entry point must"),
        ("select = [\n", "not valid TOML"),
    ],
)
def test_bad_configuration_names_the_key_and_the_file(
    tmp_path: Path, table: str, message: str
) -> None:
    root = project(tmp_path, table)
    result = invoke(str(root), "--check")
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {root / 'pyproject.toml'}: "), line
    assert message in line


def test_exclude_is_relative_to_the_configuration_folder(tmp_path: Path) -> None:
    root = project(tmp_path, 'exclude = ["pkg/legacy/*", "*_gen.py"]\n')
    (root / "pkg" / "legacy").mkdir()
    (root / "pkg" / "legacy" / "old.py").write_text(AUTOCAST)
    (root / "pkg" / "model_gen.py").write_text(AUTOCAST)
    assert invoke(str(root / "pkg"), "--allow-no-vcs").exit_code == 0
    assert (root / "pkg" / "train.py").read_text() == MIGRATED
    assert (root / "pkg" / "legacy" / "old.py").read_text() == AUTOCAST
    assert (root / "pkg" / "model_gen.py").read_text() == AUTOCAST


def test_exclude_flag_replaces_the_configured_patterns(tmp_path: Path) -> None:
    root = project(tmp_path, 'exclude = ["pkg/*"]\n')
    (root / "other.py").write_text(AUTOCAST)
    assert invoke(str(root), "--allow-no-vcs", "--exclude", "other.py").exit_code == 0
    assert (root / "pkg" / "train.py").read_text() == MIGRATED
    assert (root / "other.py").read_text() == AUTOCAST


def test_entry_and_transfer_to_npu(tmp_path: Path) -> None:
    root = project(tmp_path, 'entry = ["pkg/cli.py"]\ntransfer-to-npu = false\n')
    script = "def main():\n    pass\n"
    (root / "pkg" / "cli.py").write_text(script)
    (root / "pkg" / "lib.py").write_text(script)
    # The stand-in entry rule shows exactly which options reached the rules.
    assert invoke(str(root), "--allow-no-vcs", "--select", "TST030").exit_code == 0
    assert (root / "pkg" / "cli.py").read_text() == "import torch_npu\n" + script
    assert (root / "pkg" / "lib.py").read_text() == script, "not named as an entry point"
    (root / "pkg" / "cli.py").write_text(script)
    assert (
        invoke(str(root), "--allow-no-vcs", "--transfer-to-npu", "--select", "TST030").exit_code
        == 0
    )
    setup = "import torch_npu\nfrom torch_npu.contrib import transfer_to_npu\n"
    assert (root / "pkg" / "cli.py").read_text() == setup + script


def test_annotate_from_config_and_no_annotate_flag(tmp_path: Path) -> None:
    root = project(tmp_path, "annotate = true\n")
    (root / "pkg" / "attn.py").write_text(FLASH)
    assert invoke(str(root), "--check", "--no-annotate", "--select", "TST05").exit_code == 0
    assert invoke(str(root), "--allow-no-vcs").exit_code == 0
    assert "# NPU-TODO(TST050): use npu_fusion_attention" in (root / "pkg" / "attn.py").read_text()


def test_profile_from_config(tmp_path: Path) -> None:
    root = project(tmp_path, 'profile = "generic"\n')
    result = invoke(str(root), "--check", "--verbose")
    assert "profile generic:" in result.stderr
