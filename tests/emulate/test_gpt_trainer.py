"""A GPT trainer of our own on the emulated host: bf16 and fp32 train; fp16 with torch_npu's
GradScaler and a fused AdamW fails exactly as on a torch-npu 2.7.1 host, and passes with
torch's GradScaler("npu") or without fused (issue 14)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import gpt_trainer  # tests/emulate/gpt_trainer.py, beside this file
import pytest
import torch

from npu_emulator.trace import record_ops

TRAINER = Path(gpt_trainer.__file__)
ROOT = TRAINER.parents[2]


def _learns(losses: list[float]) -> bool:
    return len(losses) == 12 and losses[-1] < 0.8 * losses[0]


@pytest.mark.parametrize("precision", ["bf16", "fp32"])
def test_trains_in_bf16_and_fp32(npu: ModuleType, precision: gpt_trainer.Precision) -> None:
    with record_ops() as log:
        losses = gpt_trainer.train(precision)
    assert _learns(losses), losses
    matmul_dtypes = {dtype for call in log.calls("aten.addmm") for dtype in call.dtypes}
    assert matmul_dtypes == {torch.bfloat16 if precision == "bf16" else torch.float32}
    assert log.calls("aten._fused_adamw_"), "the fused AdamW kernel ran"


def test_fp16_with_torch_npus_scaler_and_fused_adamw_fails_as_on_a_host(npu: ModuleType) -> None:
    # What NPU013 (torch.npu.amp.GradScaler) + NPU004 (fused=True) write, and what
    # accelerate hands out for fp16 on an NPU: a TypeError at the first scaler.step().
    with pytest.raises(TypeError) as error:
        gpt_trainer.train("fp16", scaler="torch_npu", fused=True)
    assert str(error.value) == "Adam.step() got an unexpected keyword argument 'grad_scaler'"


@pytest.mark.parametrize(
    ("scaler", "fused"), [("torch", True), ("torch_npu", False)], ids=["torch_amp", "not_fused"]
)
def test_fp16_trains_when_migrated_correctly(
    npu: ModuleType, scaler: gpt_trainer.Scaler, fused: bool
) -> None:
    assert _learns(gpt_trainer.train("fp16", scaler=scaler, fused=fused))


def test_runs_as_a_script_under_python_m_npu_emulator() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "npu_emulator", str(TRAINER), "--precision", "bf16"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _learns(json.loads(done.stdout.splitlines()[-1])["losses"])
