"""`from torch.cuda.amp import GradScaler`: NPU012 moves the import to torch.amp (torch's own
scaler, the current API) and NPU013 gives each call the device; run together, as a
migration runs them."""

from __future__ import annotations

from migrator.contract.rule import RuleOptions
from migrator.core.target import NPU
from migrator.engine.files import migrate_text
from migrator.engine.settings import Settings

SOURCE = b"""import torch
from torch.cuda.amp import GradScaler
from torch.cuda.amp import GradScaler as Scaler, autocast

scaler = GradScaler(init_scale=1024, enabled=True)
other = Scaler()
with autocast():
    pass
"""

# LibCST's AddImportsVisitor merges the split-off alias into the existing torch.amp import.
EXPECTED = """import torch
from torch.amp import GradScaler as Scaler, GradScaler
from torch.npu.amp import autocast

scaler = GradScaler("npu", init_scale=1024, enabled=True)
other = Scaler("npu")
with autocast():
    pass
"""


def _migrate(data: bytes) -> str:
    result = migrate_text("train.py", data, Settings(NPU, ("NPU012", "NPU013"), RuleOptions()))
    return (result.new_data or data).decode()


def test_the_import_moves_to_torch_amp_and_calls_get_the_device_first() -> None:
    assert _migrate(SOURCE) == EXPECTED


def test_a_second_run_changes_nothing() -> None:
    assert _migrate(EXPECTED.encode()) == EXPECTED


def test_no_deprecated_scaler_is_written() -> None:
    out = _migrate(SOURCE)
    assert "torch.npu.amp import GradScaler" not in out and "cuda.amp" not in out
