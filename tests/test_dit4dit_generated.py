"""The dit4dit profile's generated files, end to end through the `migrate` command:
created only when absent, identical on a second run, never written over a user's file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from target_dit4dit.generated import template
from tests.dit4dit_checkout import GENERATED, checkout, snapshot
from tests.helpers import invoke

TEMPLATES = {
    "DiT4DiT/config/deepseeds/npu_zero2.json": "npu_zero2.json",
    "DiT4DiT/config/deepseeds/npu_zero2.yaml": "npu_zero2.yaml",
    "DiT4DiT/config/deepseeds/npu_zero3.json": "npu_zero3.json",
    "DiT4DiT/config/deepseeds/npu_zero3.yaml": "npu_zero3.yaml",
    "scripts/train_npu.sh": "train_npu.sh",
}


def test_dry_run_shows_every_generated_file_and_writes_nothing(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    before = snapshot(root)
    result = invoke(str(root), "--dry-run")
    assert result.exit_code == 1
    for path in GENERATED:
        assert f"--- /dev/null\n+++ b/{path}\n" in result.stdout, path
    assert snapshot(root) == before
    assert "8 files would be created" in result.stderr


def test_migration_creates_the_generated_files(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    result = invoke(str(root), "--allow-no-vcs")
    assert result.exit_code == 0, result.output
    for path in GENERATED:
        assert (root / path).is_file(), path
    for path, name in TEMPLATES.items():
        assert (root / path).read_bytes() == template(name)
    script_mode = stat.S_IMODE((root / "scripts/train_npu.sh").stat().st_mode)
    assert script_mode & 0o111, "the launch script is executable"
    config_mode = stat.S_IMODE((root / "requirements-npu.txt").stat().st_mode)
    assert config_mode & 0o044, "generated files are readable by others, as new files are"
    assert "scripts/train_npu.sh:1:1: DIT091 created" in result.stderr.replace(str(root) + "/", "")


def test_second_run_changes_nothing(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    assert invoke(str(root), "--allow-no-vcs").exit_code == 0
    after_first = snapshot(root)
    again = invoke(str(root), "--check")
    assert again.exit_code == 0, again.output
    assert "0 files would change" in again.stderr and "0 edits" in again.stderr
    # This fixture holds configs only, so the profile's rules warn that their code is
    # missing; no generated file may warn (it would mean a second run saw it as foreign).
    assert ": DIT09" not in again.stderr
    assert invoke(str(root), "--allow-no-vcs").exit_code == 0
    assert snapshot(root) == after_first


def test_user_edited_files_are_kept_with_a_warning(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    assert invoke(str(root), "--allow-no-vcs").exit_code == 0
    edited = {
        "DiT4DiT/config/deepseeds/npu_zero3.json": b'{"zero_optimization": {"stage": 3}}\n',
        "scripts/train_npu.sh": b"#!/bin/sh\necho mine\n",
    }
    for path, data in edited.items():
        (root / path).write_bytes(data)
    (root / "requirements-npu.txt").unlink()
    report = (root / "NPU_MIGRATION.md").read_bytes()
    result = invoke(str(root), "--allow-no-vcs")
    assert result.exit_code == 0, result.output
    for path, data in edited.items():
        assert (root / path).read_bytes() == data
        assert f"{path}:1:1: DIT09" in result.stderr.replace(str(root) + "/", "")
    assert "exists and differs from the file npu-migrator generates" in result.stderr
    assert (root / "requirements-npu.txt").is_file(), "a deleted generated file comes back"
    assert (root / "NPU_MIGRATION.md").read_bytes() == report, "the first run's report stays"
    assert "NPU_MIGRATION.md:1:1: DIT094 warning" in result.stderr.replace(str(root) + "/", "")


def test_a_file_the_user_already_had_is_never_overwritten(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    (root / "scripts").mkdir()
    (root / "scripts/train_npu.sh").write_text("#!/bin/bash\n# my own launcher\n")
    result = invoke(str(root), "--allow-no-vcs")
    assert result.exit_code == 0
    assert (root / "scripts/train_npu.sh").read_text() == "#!/bin/bash\n# my own launcher\n"
    report = (root / "NPU_MIGRATION.md").read_text()
    assert "| `scripts/train_npu.sh` | 1 | DIT091 | exists and differs" in report
    assert "| `scripts/train_npu.sh` | launch script for one Ascend node | exists" in report


def test_a_symlink_at_a_generated_path_is_not_followed(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours\n")
    os.symlink(outside, root / "requirements-npu.txt")
    result = invoke(str(root), "--allow-no-vcs")
    assert result.exit_code == 0
    assert outside.read_text() == "not yours\n"
    assert (root / "requirements-npu.txt").is_symlink()
    assert "requirements-npu.txt:1:1: DIT093 warning" in result.stderr.replace(str(root) + "/", "")


def test_out_writes_generated_files_into_the_copy_only(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    before = snapshot(root)
    out = tmp_path / "migrated"
    assert invoke(str(root), "--out", str(out)).exit_code == 0
    assert snapshot(root) == before
    for path in GENERATED:
        assert (out / path).is_file(), path
    assert '"npu"' in (out / "DiT4DiT/training/train.py").read_text()


def test_a_tree_without_the_dit4dit_trainer_gets_no_generated_files(tmp_path: Path) -> None:
    root = tmp_path / "other"
    root.mkdir()
    (root / "train.py").write_text('import torch\nwith torch.autocast("cuda"):\n    pass\n')
    result = invoke(str(root), "--allow-no-vcs", "--profile", "dit4dit")
    assert result.exit_code == 0
    assert sorted(p.name for p in root.iterdir()) == ["train.py"]
