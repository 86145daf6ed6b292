"""The device rules (NPU001, NPU010-NPU017) on one file, one after another as a profile runs
them: every construct is edited by exactly one rule, and a second run changes nothing."""

from __future__ import annotations

from migrator.contract.rule import RuleOptions
from migrator.core.target import NPU
from migrator.engine import registry
from migrator.engine.files import migrate_text
from migrator.engine.settings import Settings

BEFORE = '''\
import os

import torch
import torch.distributed as dist

os.environ["CUDA_VISIBLE_DEVICES"] = "0"
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
BACKEND = "nccl"


def train(model, batch, rank, device_type="cuda"):
    """Trains on "cuda" with "nccl"."""
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.benchmark = True
    dist.init_process_group(backend=BACKEND)
    torch.cuda.set_device(f"cuda:{rank}")
    model = model.cuda(rank)
    scaler = torch.cuda.amp.GradScaler()
    fused = device_type == "cuda" and dist.get_backend() == "nccl"
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(batch.to("cuda", non_blocking=True))
    with torch.cuda.amp.autocast():
        loss = loss + model(batch.cuda())
    scaler.scale(loss).backward()
    torch.cuda.synchronize()
    print("done on cuda")
    return fused
'''

AFTER = '''\
import os

import torch
import torch.distributed as dist

os.environ["ASCEND_RT_VISIBLE_DEVICES"] = "0"
DEVICE = "npu" if torch.npu.is_available() else "cpu"
BACKEND = "hccl"


def train(model, batch, rank, device_type="npu"):
    """Trains on "cuda" with "nccl"."""
    torch.npu.matmul.allow_hf32 = True
    torch.backends.cudnn.benchmark = True
    dist.init_process_group(backend=BACKEND)
    torch.npu.set_device(f"npu:{rank}")
    model = model.npu(rank)
    scaler = torch.npu.amp.GradScaler()
    fused = device_type in ("cuda", "npu") and dist.get_backend() == "hccl"
    with torch.autocast("npu", dtype=torch.bfloat16):
        loss = model(batch.to("npu", non_blocking=True))
    with torch.npu.amp.autocast():
        loss = loss + model(batch.npu())
    scaler.scale(loss).backward()
    torch.npu.synchronize()
    print("done on cuda")
    return fused
'''

CODES = ("NPU001", *(f"NPU01{i}" for i in range(8)))


def _run(text: str, full: bool = False) -> tuple[str, list[str]]:
    rules = [rule for rule in registry.load().rules if rule.code in CODES]
    assert len(rules) == len(CODES)
    ordered = sorted(rules, key=lambda rule: (rule.priority, rule.code))
    settings = Settings(NPU, tuple(rule.code for rule in ordered), RuleOptions(), full=full)
    result = migrate_text("train.py", text.encode(), settings)
    assert result.error is None, result.error
    output = (result.new_data or text.encode()).decode()
    return output, [change.format() for change in result.changes]


def test_device_rules_share_a_file() -> None:
    output, changes = _run(BEFORE)
    assert output == AFTER
    places = [line.split(": ", 1)[0] for line in changes]
    assert len(places) == len(set(places)), "two rules edited the same construct"
    assert any(" NPU001 " in line for line in changes)
    assert not any(" NPU010 " in line and ":20:" in line for line in changes)


def test_device_rules_full_path_agrees() -> None:
    assert _run(BEFORE, full=True)[0] == AFTER


def test_device_rules_second_run_changes_nothing() -> None:
    output, changes = _run(AFTER)
    assert output == AFTER
    assert changes == []


GUARDED = """\
import torch
import torch.distributed as dist


def setup(scaler_device="cuda"):
    if torch.cuda.is_available():
        dist.init_process_group("nccl")
        scaler = torch.amp.GradScaler("cuda")
    return scaler
"""


def test_a_test_the_run_rewrote_does_not_read_as_npu_aware() -> None:
    """NPU012 turns the test into `torch.npu.is_available()` first; NPU013 and NPU016 still
    see the chain as it was written (CUDA only) and migrate its body."""
    for full in (False, True):
        output, _ = _run(GUARDED, full=full)
        assert "if torch.npu.is_available():" in output
        assert 'init_process_group("hccl")' in output
        assert 'GradScaler("npu")' in output
