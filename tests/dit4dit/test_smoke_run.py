"""End to end: train a real DiT4DiT checkout for two steps (about 30 s on 2 CPU cores).

Runs only with ``pytest -m slow`` and ``DIT4DIT_CHECKOUT`` naming a checkout that should pass
(a migrated one; ``DIT4DIT_SMOKE_PRECISION=fp32`` for an fp32 run).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from target_dit4dit.smoke.runner import run_smoke

pytestmark = [
    pytest.mark.slow,
    pytest.mark.smoke_deps,
    pytest.mark.skipif(
        not os.environ.get("DIT4DIT_CHECKOUT"), reason="set DIT4DIT_CHECKOUT to a DiT4DiT checkout"
    ),
]


def test_checkout_trains_evaluates_and_saves(tmp_path: Path) -> None:
    pytest.importorskip("deepspeed")
    precision = os.environ.get("DIT4DIT_SMOKE_PRECISION", "bf16")
    result = run_smoke(
        Path(os.environ["DIT4DIT_CHECKOUT"]),
        zero=2,
        num_processes=1,
        workdir=tmp_path,
        timeout=900,
        precision=precision,  # type: ignore[arg-type]
    )
    report = "\n".join(f"{c.name}: {c.passed} {c.detail}" for c in result.checks)
    assert result.passed, f"{report}\n{result.log_tail}"
    assert [c.name for c in result.checks] == [
        "exit",
        "steps",
        "eval",
        "checkpoint steps_1_pytorch_model.pt",
        "checkpoint pytorch_model.pt",
    ]
