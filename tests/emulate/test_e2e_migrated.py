"""The migration is what makes the CUDA trainer run on an (emulated) Ascend host.

tests/fixtures/e2e_trainer fails unmigrated (test_e2e_unmigrated.py). Here `migrate`
ports a copy of it and the port runs under the emulator: it trains with a finite loss that
goes down, evaluates to numpy and saves a checkpoint; its parameters live on "npu" and its
backbone region computes in bf16. Once in one process, once as two ranks through
`accelerate launch` over hccl.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrator.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "e2e_trainer"


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("cuda") / "trainer"
    shutil.copytree(FIXTURE, source)
    out = tmp_path_factory.mktemp("npu") / "trainer"
    result = CliRunner().invoke(main, [str(source), "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


def test_the_migration_made_the_port(migrated: Path) -> None:
    model = (migrated / "model.py").read_text()
    train = (migrated / "train.py").read_text()
    assert 'torch.autocast("npu", dtype=torch.bfloat16)' in model
    assert 'torch.autocast("npu", dtype=torch.float32)' in model
    assert "@torch.no_grad()" in model and "inference_mode" not in model
    assert "pred_actions.detach().float().cpu().numpy()" in model
    assert "fused=True" in train
    assert "import torch_npu" in train and "transfer_to_npu" in train
    # No mmcv in the project: mx_driving's default patcher is not applied (issue 11).
    assert "mx_driving" not in train
    assert "import torch_npu" not in model, "torch_npu goes into entry points only"


def _reports(folder: Path) -> list[dict[str, object]]:
    return [json.loads(path.read_text()) for path in sorted(folder.glob("report-*.json"))]


def _assert_trained(metrics: dict[str, object], steps: int) -> None:
    losses = metrics["losses"]
    assert isinstance(losses, list) and len(losses) == steps
    assert all(math.isfinite(loss) for loss in losses)
    head, tail = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
    assert tail < 0.5 * head, f"the loss did not go down: {head:.4f} -> {tail:.4f}"
    eval_mse = metrics["eval_mse"]
    assert isinstance(eval_mse, float) and math.isfinite(eval_mse)
    assert metrics["param_devices"] == ["npu:0"]


def test_migrated_trainer_trains_on_the_npu_in_bf16(
    migrated: Path, tmp_path: Path, python_env: Callable[..., dict[str, str]]
) -> None:
    reports, outputs = tmp_path / "reports", tmp_path / "outputs"
    steps = 40
    done = subprocess.run(
        [sys.executable, "-m", "npu_emulator", "--report", str(reports),
         str(migrated / "train.py"), "--steps", str(steps), "--output-dir", str(outputs)],
        env=python_env(emulated=False), cwd=tmp_path, capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = json.loads((outputs / "metrics.json").read_text())
    _assert_trained(metrics, steps)
    checkpoint = Path(str(metrics["checkpoint"]))
    assert checkpoint.name == f"steps_{steps}_pytorch_model.pt"

    (report,) = _reports(reports)
    autocast = report["autocast"]
    assert isinstance(autocast, dict)
    assert autocast["npu/bfloat16/enabled"] >= steps, "the backbone region ran in bf16"
    assert not any(key.startswith("cuda/") for key in autocast)
    ops = report["ops"]
    assert isinstance(ops, dict)
    assert ops.get("aten.addmm.default(bfloat16)", 0) > 0, "linear layers ran in bf16"
    assert any(op.startswith("aten._fused_adamw_") for op in ops), "fused AdamW ran"
    assert report["devices_used"] == [0]
    events = report["events"]
    assert isinstance(events, dict)
    assert "transfer_to_npu_applied" in events and "mx_driving_patcher_applied" not in events

    load = subprocess.run(
        [sys.executable, "-c",
         "import sys, torch; state = torch.load(sys.argv[1]);"
         "print(sorted({str(t.device) for t in state.values()}))", str(checkpoint)],
        env=python_env(emulated=True), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert load.returncode == 0, load.stderr[-2000:]
    assert load.stdout.strip() == "['npu:0']", "the checkpoint holds npu tensors and loads back"


def test_migrated_trainer_runs_as_two_ranks_through_accelerate(
    migrated: Path, tmp_path: Path, python_env: Callable[..., dict[str, str]]
) -> None:
    reports, outputs = tmp_path / "reports", tmp_path / "outputs"
    steps = 30
    done = subprocess.run(
        [sys.executable, "-m", "migrator.cli", "run", "--emulate-npu", "--devices", "2",
         "--report", str(reports), "--", "-m", "accelerate.commands.launch",
         "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no",
         "--dynamo_backend", "no", "--main_process_port", "0",
         str(migrated / "train.py"), "--steps", str(steps), "--output-dir", str(outputs)],
        env=python_env(emulated=False), cwd=tmp_path, capture_output=True, text=True,
        timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = json.loads((outputs / "metrics.json").read_text())
    assert metrics["num_processes"] == 2
    _assert_trained(metrics, steps)
    ranks = _reports(reports)
    trained = [r for r in ranks if r.get("autocast")]
    assert len(trained) == 2, "both ranks ran the bf16 region on their own npu"
    assert sorted(tuple(r["devices_used"]) for r in trained) == [(0,), (1,)]  # type: ignore[arg-type]
