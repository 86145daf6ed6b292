"""The emulated host runs one torch-npu release, and its fused optimizer kernels are that
release's: without a kernel, the op falls back to the CPU with torch_npu's warning."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path
from types import ModuleType

import pytest
import torch

from npu_emulator import dispatch, releases

ROOT = Path(__file__).resolve().parents[2]


def _fused_step(optimizer_type: type) -> list[str]:
    model = torch.nn.Linear(2, 1).npu()
    optimizer = optimizer_type(model.parameters(), lr=0.1, fused=True)
    model(torch.ones(3, 2, device="npu")).sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optimizer.step()
    return [str(w.message) for w in caught if "CAUTION" in str(w.message)]


@pytest.fixture
def release(monkeypatch: pytest.MonkeyPatch, npu: ModuleType) -> pytest.MonkeyPatch:
    monkeypatch.setattr(dispatch, "_FELL_BACK", set())
    return monkeypatch


# Before, every fused kernel ran on every release without a word.
@pytest.mark.parametrize(
    ("optimizer_type", "op"),
    [(torch.optim.Adam, "_fused_adam_"), (torch.optim.SGD, "_fused_sgd_")],
)
@pytest.mark.parametrize("version", ["2.6.0", "2.7.1.post2"])
def test_adam_and_sgd_fall_back_to_the_cpu_before_post11(
    release: pytest.MonkeyPatch, version: str, optimizer_type: type, op: str
) -> None:
    release.setenv(releases.ENV_RELEASE, version)
    [message] = _fused_step(optimizer_type)
    assert message.startswith(
        f"CAUTION: The operator 'aten::{op}' is not currently supported on the NPU backend "
        "and will fall back to run on the CPU. This may have performance implications."
    )
    assert version in message
    assert _fused_step(optimizer_type) == [], "once per op, as the host warns"


@pytest.mark.parametrize(
    ("version", "optimizer_type"),
    [("2.7.1.post2", torch.optim.AdamW), ("2.7.1.post11", torch.optim.Adam),
     ("2.14.0", torch.optim.SGD), (None, torch.optim.Adam)],
)  # fmt: skip
def test_kernels_the_release_has_run_silently(
    release: pytest.MonkeyPatch, version: str | None, optimizer_type: type
) -> None:
    if version is None:
        release.delenv(releases.ENV_RELEASE, raising=False)  # the default, post11
    else:
        release.setenv(releases.ENV_RELEASE, version)
    assert _fused_step(optimizer_type) == []


def test_a_tensor_learning_rate_falls_back_on_every_release(release: pytest.MonkeyPatch) -> None:
    # The data: no release registers the .tensor_lr form of _fused_adamw_ for the NPU.
    release.setenv(releases.ENV_RELEASE, "2.7.1.post11")
    model = torch.nn.Linear(2, 1).npu()
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=torch.tensor(0.01, device="npu"), fused=True
    )
    model(torch.ones(3, 2, device="npu")).sum().backward()
    with pytest.warns(UserWarning, match=r"'aten::_fused_adamw_\.tensor_lr' is not currently"):
        optimizer.step()


def test_the_release_is_an_option_and_in_the_report(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("import torch\nprint(torch.zeros(1, device='npu').device)\n")
    reports = tmp_path / "reports"
    done = subprocess.run(
        [sys.executable, "-m", "npu_emulator", "--torch-npu", "2.7.1.post2",
         "--report", str(reports), str(script)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [report] = reports.glob("report-*.json")
    assert '"torch_npu_release": "2.7.1.post2"' in report.read_text()
    bad = subprocess.run(
        [sys.executable, "-m", "npu_emulator", "--torch-npu", "9.9", str(script)],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert bad.returncode == 2
    assert "unknown torch-npu release '9.9'" in bad.stderr
