"""The target torch-npu release: chosen once per run, read by the rules, stated by every report."""

from __future__ import annotations

import json
from pathlib import Path

from migrator.contract.rule import RuleOptions
from tests.helpers import invoke

ADAM = "import torch\nopt = torch.optim.Adam(params, lr=1e-3)\n"


def _project(root: Path, **files: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "train.py").write_text(ADAM)
    for name, text in files.items():
        (root / name.replace("__", ".")).write_text(text)
    return root


def test_default_release_is_stated_before_the_summary(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    result = invoke(str(root), "--dry-run", "--no-cache")
    lines = result.stderr.splitlines()
    assert lines[-2].startswith("target: torch-npu 2.7.1.post11 (the default")
    assert "fused=True" in result.stdout


def test_the_flag_wins_and_gates_fused_adam(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", requirements__txt="torch-npu==2.7.1.post11\n")
    result = invoke(str(root), "--dry-run", "--no-cache", "--torch-npu", "2.7.1.post2")
    assert "target: torch-npu 2.7.1.post2 (--torch-npu 2.7.1.post2)" in result.stderr
    assert "fused=True" not in result.stdout


def test_config_key_then_project_pins(tmp_path: Path) -> None:
    root = _project(
        tmp_path / "p",
        pyproject__toml='[tool.migrate]\ntorch-npu = "2.6.0"\n',
        requirements__txt="torch==2.7.1\n",
    )
    result = invoke(str(root), "--dry-run", "--no-cache")
    assert "target: torch-npu 2.6.0 (" in result.stderr
    assert "[tool.migrate] torch-npu 2.6.0)" in result.stderr
    (root / "pyproject.toml").unlink()
    (root / "requirements.txt").write_text("torch==2.7.1\ntorch-npu==2.7.1.post2\n")
    result = invoke(str(root), "--dry-run", "--no-cache")
    assert (
        "target: torch-npu 2.7.1.post2 (the project's torch-npu pin torch-npu==2.7.1.post2, "
        "in requirements.txt:2)" in result.stderr
    )
    (root / "requirements.txt").write_text("torch==2.6.0\n")
    result = invoke(str(root), "--dry-run", "--no-cache")
    assert "target: torch-npu 2.6.0 (the newest torch-npu for the project's torch pin" in (
        result.stderr
    )


def test_unknown_release_is_one_error_line(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    result = invoke(str(root), "--dry-run", "--torch-npu", "9.9")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        "error: --torch-npu 9.9: no such torch-npu release in the data file "
        "(known: 2.6.0, 2.7.1.post2, 2.7.1.post11, 2.14.0)"
    ]
    (root / "pyproject.toml").write_text('[tool.migrate]\ntorch-npu = "1.0"\n')
    result = invoke(str(root), "--dry-run")
    assert result.exit_code == 2
    assert "[tool.migrate] torch-npu 1.0: no such torch-npu release" in result.stderr


def test_every_report_format_states_the_release(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    for name in ("r.json", "r.md", "r.sarif"):
        report = tmp_path / name
        invoke(
            str(root), "--dry-run", "--no-cache", "--torch-npu", "2.6.0", "--report", str(report)
        )
        text = report.read_text()
        if name == "r.json":
            assert json.loads(text)["target"] == {
                "torch_npu": "2.6.0",
                "reason": "--torch-npu 2.6.0",
            }
        elif name == "r.md":
            assert "**Target release:** torch-npu 2.6.0 (--torch-npu 2.6.0)." in text
        else:
            props = json.loads(text)["runs"][0]["properties"]
            assert props["targetRelease"] == {"torchNpu": "2.6.0", "reason": "--torch-npu 2.6.0"}


def test_the_release_is_part_of_the_cache_key(tmp_path: Path) -> None:
    from dataclasses import replace

    from migrator.core.project import EMPTY
    from migrator.core.target import NPU
    from migrator.data.release import resolve
    from migrator.engine.cache import run_key
    from migrator.engine.settings import Settings

    base = Settings(NPU, ("NPU004",), RuleOptions())
    keys = {
        run_key(replace(base, project=replace(EMPTY, release=resolve(version))))
        for version in ("2.6.0", "2.7.1.post11")
    }
    assert len(keys) == 2


def test_choose_release_reads_the_first_pins() -> None:
    from migrator.core.project import Pin, ProjectView
    from migrator.engine.project import choose_release

    view = ProjectView(pins=(Pin("torch", "==2.6.0", "", "setup/req.txt", 3),))
    chosen = choose_release(view, None)
    assert chosen.version == "2.6.0"
    assert chosen.reason.endswith(", in setup/req.txt:3")
    assert choose_release(view, "2.14.0").version == "2.14.0"


def test_fp16_scalers_from_configs_and_launch_scripts(tmp_path: Path) -> None:
    from migrator.engine.project import build

    root = tmp_path / "p"
    (root / "configs").mkdir(parents=True)
    (root / "configs" / "acc.yaml").write_text(
        "compute_environment: LOCAL\nmixed_precision: fp16\n"
    )
    (root / "configs" / "bf16.yaml").write_text("mixed_precision: bf16\n")
    (root / "run.sh").write_text(
        "accelerate launch --mixed_precision=fp16 train.py\n"
        "python train.py --fp16 False\n"
        "torchrun train.py \\\n  --fp16 \\\n  --bf16 False\n"
        "echo --mixed_precision bf16\n"
    )
    files = ["configs/acc.yaml", "configs/bf16.yaml", "run.sh"]
    view = build(root, files)
    assert [(f.path, f.line, f.how) for f in view.fp16_scalers] == [
        ("configs/acc.yaml", 2, "mixed_precision: fp16"),
        ("run.sh", 1, "--mixed_precision fp16"),
        ("run.sh", 4, "--fp16"),
    ]


def test_library_fp16_keeps_fused_off_project_wide(tmp_path: Path) -> None:
    root = _project(tmp_path / "p", train__sh="accelerate launch --mixed_precision fp16 train.py\n")
    (root / "train.py").write_text("import torch\nopt = torch.optim.AdamW(params)\n")
    result = invoke(str(root), "--dry-run", "--no-cache", "--select", "NPU004")
    assert "fused=True" not in result.stdout
    assert (
        "fused=True not added: fp16 with a library's GradScaler "
        "(train.sh:1: --mixed_precision fp16)" in result.stderr
    )
