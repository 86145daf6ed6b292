"""What makes a smoke run a pass, read from its log and its output folder.

An exit status of 0 is not enough: DiT4DiT's trainer can finish without ever stepping (a
dataloader that yields nothing), with a NaN loss, without evaluating (``eval_interval`` never
reached) or without a loadable checkpoint (a ZeRO-3 state dict gathered on one rank only).
Each check says which of these it looked for.

The trainer logs one line per optimizer step through its rich logging handler:
``[Exp: smoke] Step 2, Loss: {'action_dit_loss': 1.1, ..., 'total_loss': 1.3, 'mse_score': ...})``.
Values may be plain floats or NumPy scalars (``np.float32(0.5)``).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_STEP_LINE = re.compile(r"Step (?P<step>\d+), Loss: (?P<metrics>\{.*\})")
_NUMBER = r"(?:np\.float\d+\()?(?P<value>[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf))"


@dataclass(frozen=True)
class CheckResult:
    name: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class StepRecord:
    step: int
    metrics: Mapping[str, float]


def _metric(text: str, key: str) -> float | None:
    match = re.search(rf"'{re.escape(key)}': {_NUMBER}", text)
    return float(match.group("value")) if match else None


def parse_steps(log: str) -> list[StepRecord]:
    """Every per-step metrics line in the log, in order."""
    records = []
    for match in _STEP_LINE.finditer(log):
        metrics = {}
        for key in ("total_loss", "action_dit_loss", "future_video_loss", "mse_score"):
            value = _metric(match.group("metrics"), key)
            if value is not None:
                metrics[key] = value
        records.append(StepRecord(step=int(match.group("step")), metrics=metrics))
    return records


def check_exit(returncode: int | None, timed_out: bool) -> CheckResult:
    if timed_out:
        return CheckResult("exit", False, "killed at the timeout")
    return CheckResult("exit", returncode == 0, f"exit status {returncode}")


def check_steps(records: list[StepRecord], max_train_steps: int) -> CheckResult:
    finite = {
        r.step
        for r in records
        if "total_loss" in r.metrics and math.isfinite(r.metrics["total_loss"])
    }
    missing = sorted(set(range(1, max_train_steps + 1)) - finite)
    if missing:
        return CheckResult("steps", False, f"no finite total_loss logged for step(s) {missing}")
    losses = [r.metrics["total_loss"] for r in records if r.step <= max_train_steps]
    return CheckResult("steps", True, f"{max_train_steps} optimizer steps, total_loss {losses}")


def check_eval(records: list[StepRecord]) -> CheckResult:
    scores = [(r.step, r.metrics["mse_score"]) for r in records if "mse_score" in r.metrics]
    if not scores:
        return CheckResult("eval", False, "no mse_score logged: the evaluation never ran")
    bad = [step for step, score in scores if not math.isfinite(score)]
    if bad:
        return CheckResult("eval", False, f"mse_score not finite at step(s) {bad}")
    return CheckResult("eval", True, f"mse_score at (step, score) {scores}")


# Run by the smoke interpreter (which has torch), with the run's environment, so that a
# checkpoint holding emulated or real NPU tensors loads the way the trainer wrote it.
_LOAD_SCRIPT = """
import json, math, sys
import torch
state = torch.load(sys.argv[1], map_location="cpu", weights_only=False)
tensors = {k: v for k, v in state.items() if torch.is_tensor(v)}
bad = [k for k, v in tensors.items()
       if v.is_floating_point() and not bool(torch.isfinite(v.float()).all())]
print(json.dumps({
    "tensors": len(tensors),
    "action_model": sum(1 for k in tensors if k.startswith("action_model.")),
    "backbone": sum(1 for k in tensors if k.startswith("backbone_interface.")),
    "non_finite": bad[:5],
    "dtypes": sorted({str(v.dtype) for v in tensors.values()}),
}))
"""


def check_checkpoint(
    path: Path, python: str, env: Mapping[str, str], timeout: float = 300.0
) -> CheckResult:
    """The checkpoint exists, loads, and holds finite action-head and backbone tensors."""
    name = f"checkpoint {path.name}"
    if not path.is_file():
        return CheckResult(name, False, f"{path} was not written")
    proc = subprocess.run(
        [python, "-c", _LOAD_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        return CheckResult(name, False, f"{path} does not load: {tail[0]}")
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    ok = summary["action_model"] > 0 and summary["backbone"] > 0 and not summary["non_finite"]
    return CheckResult(name, ok, f"{path}: {summary}")
