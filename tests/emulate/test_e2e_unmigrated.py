"""The unported CUDA trainer fails under the emulator the way it fails on an Ascend host.

tests/fixtures/e2e_trainer is CUDA code: its bf16 backbone runs inside
``torch.autocast("cuda", dtype=torch.bfloat16)``. On an Ascend host accelerate puts the
model on the NPU, the "cuda" autocast region is switched off because CUDA is absent, and
the first bf16 matmul receives fp32 observations. That is the failure asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

TRAINER = Path(__file__).resolve().parents[1] / "fixtures" / "e2e_trainer" / "train.py"


def test_unmigrated_trainer_fails_on_the_disabled_cuda_autocast(
    tmp_path: Path, python_env: Callable[..., dict[str, str]]
) -> None:
    reports, outputs = tmp_path / "reports", tmp_path / "outputs"
    result = subprocess.run(
        [
            sys.executable, "-m", "npu_emulator", "--report", str(reports),
            str(TRAINER), "--steps", "3", "--output-dir", str(outputs),
        ],
        env=python_env(emulated=False),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip
    assert result.returncode == 1
    assert "CUDA is not available or torch_xla is imported. Disabling autocast." in result.stderr
    last_line = result.stderr.strip().splitlines()[-1]
    assert (
        last_line
        == "RuntimeError: mat1 and mat2 must have the same dtype, but got Float and BFloat16"
    )
    assert not outputs.exists()  # it never trained, evaluated or saved

    (path,) = reports.glob("report-*.json")
    report = json.loads(path.read_text())
    # accelerate found the (emulated) NPU and put the model there ...
    assert report["devices_used"] == [0]
    # ... the only autocast region entered was the "cuda" one, and it was off ...
    assert report["autocast"] == {"cuda/bfloat16/disabled": 1}
    # ... so the backbone's first linear layer met fp32 inputs and bf16 weights.
    assert report["ops"]["aten.addmm.default(bfloat16,float32)"] == 1
