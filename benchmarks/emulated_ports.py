"""Two human-port projects, migrated by the tool, train a few steps on the NPU emulator.

    python -m benchmarks.emulated_ports --clones /work/.mirror [--project GameFormer ...]
        [--work /tmp/emulated_ports] [--timeout 900]

For each project (pure PyTorch ones of the human-port development split, whose
dependencies are torch, numpy and tqdm): export the upstream tree at the commit pinned in
`benchmarks/human_ports/projects.toml` (the harness's `export_tree`), write tiny random
data in the format the project's data loader reads (`.npz` files, made here at run time,
offline), run the unmigrated trainer under the emulator (`migrate run --emulate-npu --
train.py ...`: it must fail, CUDA being absent), migrate the tree (`migrate SRC --out
DST`), run the migrated trainer the same way, and print a table: project, unmigrated
result and its error line, migrated result, training steps, loss first -> last, seconds.

Losses are read from the trainers' own progress bars (tqdm's running mean of the epoch's
losses; each step's loss is recovered from consecutive means). A benchmark, not a CI
test: it needs the clones. No upstream code is kept in this repository.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: `python benchmarks/emulated_ports.py`
    sys.path.insert(0, str(ROOT))

from benchmarks.human_ports.harness import export_tree, find_clone, load_projects  # noqa: E402

Writer = Callable[[np.random.Generator], dict[str, np.ndarray]]


def _agents(
    rng: np.random.Generator, shape: tuple[int, ...], type_column: int | None
) -> np.ndarray:
    """Agent states: nonzero floats (zero rows are padding to these models)."""
    states = rng.uniform(0.5, 5.0, size=shape).astype(np.float32)
    if type_column is not None:
        states[..., type_column] = rng.integers(1, 4, size=shape[:-1])
    return states


def gameformer_sample(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One open-loop planning sample of MCZhi/GameFormer (`open_loop_planning/data_process.py`).

    10 neighbours, 11 past steps of (x, y, heading, vx, vy, length, width, height, type),
    6 lanes x 100 points x 16 features (geometry, speed limit, then integer codes for the
    lane's and its boundaries' types, traffic light, interpolating, stop sign: the model
    embeds those), 4 crosswalks x 100 x 3, a 1000-point reference line, 50 future steps.
    """
    lanes = rng.uniform(0.5, 5.0, size=(11, 6, 100, 16)).astype(np.float32)
    for column, codes in ((10, 4), (11, 11), (12, 11), (13, 9), (14, 2), (15, 2)):
        lanes[..., column] = rng.integers(0, codes, size=lanes.shape[:-1])
    return {
        "ego": _agents(rng, (11, 9), type_column=8),
        "neighbors": _agents(rng, (10, 11, 9), type_column=8),
        "map_lanes": lanes,
        "map_crosswalks": rng.uniform(0.5, 5.0, size=(11, 4, 100, 3)).astype(np.float32),
        "ref_line": rng.uniform(0.5, 5.0, size=(1000, 5)).astype(np.float32),
        "gt_future_states": rng.uniform(0.5, 5.0, size=(11, 50, 5)).astype(np.float32),
    }


def gameformer_planner_sample(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One nuPlan sample of MCZhi/GameFormer-Planner (`data_process.py`, `data_utils.py`).

    21 frames of the ego's (x, y, heading, vx, vy, ax, ay); 20 neighbours of 8 states plus
    a one-hot type; 40 lanes x 50 points x 7 (pose and a traffic-light one-hot), 5
    crosswalks x 30 x 3, 10 route lanes x 50 x 3; 80 future (x, y, heading) steps each.
    """
    neighbors = _agents(rng, (20, 21, 11), type_column=None)
    neighbors[..., 8:] = np.eye(3, dtype=np.float32)[rng.integers(0, 3, size=(20, 1))]
    lanes = _agents(rng, (40, 50, 7), type_column=None)
    lanes[..., 3:] = np.eye(4, dtype=np.float32)[rng.integers(0, 4, size=(40, 50))]
    return {
        "ego_agent_past": _agents(rng, (21, 7), type_column=None),
        "neighbor_agents_past": neighbors,
        "lanes": lanes,
        "crosswalks": _agents(rng, (5, 30, 3), type_column=None),
        "route_lanes": _agents(rng, (10, 50, 3), type_column=None),
        "ego_agent_future": _agents(rng, (80, 3), type_column=None),
        "neighbor_agents_future": _agents(rng, (20, 80, 3), type_column=None),
    }


@dataclass(frozen=True)
class Port:
    """How to train one project: where its script is, its arguments, its data."""

    name: str
    folder: str  # the script's folder in the tree (its imports are relative to it)
    script: str
    args: str  # the trainer's options; `{train}` / `{valid}`: the data folders
    sample: Writer
    train_samples: int = 8
    valid_samples: int = 2


PORTS = (
    Port(
        "GameFormer",
        "open_loop_planning",
        "train.py",
        "--train_set {train} --valid_set {valid} --train_epochs 1 --batch_size 2 "
        "--levels 2 --learning_rate 1e-3 --name bench",
        gameformer_sample,
    ),
    Port(
        "GameFormer-Planner",
        ".",
        "train_predictor.py",
        "--train_set {train} --valid_set {valid} --train_epochs 1 --batch_size 2 "
        "--encoder_layers 2 --decoder_levels 1 --learning_rate 1e-3 --name bench",
        gameformer_planner_sample,
    ),
)


@dataclass(frozen=True)
class Run:
    returncode: int
    seconds: float
    error: str  # the last line that names an exception, or ""
    losses: tuple[float, ...]
    emulated: str  # from the emulator's reports: cards used, fused optimizer kernels run


def write_data(port: Port, folder: Path, seed: int = 0) -> dict[str, Path]:
    rng = np.random.default_rng(seed)
    found: dict[str, Path] = {}
    for split, count in (("train", port.train_samples), ("valid", port.valid_samples)):
        target = folder / split
        target.mkdir(parents=True, exist_ok=True)
        for index in range(count):
            arrays: dict[str, Any] = dict(port.sample(rng))
            np.savez(target / f"sample_{index:03d}.npz", **arrays)
        found[split] = target
    return found


_ERROR = re.compile(r"^\w+(?:\.\w+)*(?:Error|Exception)\b.*")
_LOSS = re.compile(r"Training.*?loss=([-+0-9.eE]+|nan)")


def step_losses(output: str) -> tuple[float, ...]:
    """Each training step's loss, from the progress bar's running means of one epoch."""
    means: list[float] = []
    for chunk in re.split(r"[\r\n]", output):
        found = _LOSS.search(chunk)
        if found is not None:
            value = float(found.group(1))
            if not means or value != means[-1]:
                means.append(value)
    return tuple(
        round(m * (n + 1) - (means[n - 1] * n if n else 0.0), 4) for n, m in enumerate(means)
    )


_FUSED_OPTIMIZERS = ("_fused_adam", "_fused_sgd")


def _reported(folder: Path) -> str:
    cards: set[int] = set()
    fused: set[str] = set()
    for path in folder.glob("report-*.json"):
        found = json.loads(path.read_text(encoding="utf-8"))
        cards.update(found["devices_used"])
        ops = (op.split("(")[0].removeprefix("aten.") for op in found["ops"])
        fused.update(op.split(".")[0] for op in ops if op.startswith(_FUSED_OPTIMIZERS))
    names = [f"npu:{i}" for i in sorted(cards)] + sorted(fused)
    return ", ".join(names) or "-"


def run_emulated(
    script_dir: Path, script: str, args: Sequence[str], timeout: float, reports: Path
) -> Run:
    command = [sys.executable, "-m", "migrator", "run", "--emulate-npu", "--report", str(reports)]
    command += ["--", script, *args]
    env = dict(os.environ, PYTHONPATH=str(ROOT), WANDB_MODE="disabled")
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=script_dir, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as expired:
        err = expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else ""
        seconds = time.perf_counter() - start
        message = f"timed out after {timeout:.0f} s"
        return Run(-1, seconds, message, step_losses(err), _reported(reports))
    seconds = time.perf_counter() - start
    lines = [line.strip() for line in done.stderr.splitlines()]
    errors = [line for line in lines if _ERROR.match(line)]
    losses = step_losses(done.stdout + done.stderr)
    return Run(done.returncode, seconds, errors[-1] if errors else "", losses, _reported(reports))


def migrate(source: Path, dest: Path) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "migrator", str(source), "--out", str(dest), "--quiet"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""


def bench(port: Port, clones: Path, work: Path, timeout: float) -> dict[str, str]:
    project = {p.name: p for p in load_projects()}[port.name]
    base = work / port.name
    if base.exists():
        shutil.rmtree(base)
    upstream, migrated = base / "upstream", base / "migrated"
    missing = export_tree(find_clone(clones, project.upstream), project.commit, upstream)
    data = write_data(port, base / "data")
    args = [a.format(train=data["train"], valid=data["valid"]) for a in port.args.split()]
    before = run_emulated(upstream / port.folder, port.script, args, timeout, base / "before")
    migrate_rc, migrate_note = migrate(upstream, migrated)
    after = run_emulated(migrated / port.folder, port.script, args, timeout, base / "after")
    losses = after.losses
    return {
        "project": f"{port.name} @ {project.commit[:7]}",
        "unmigrated": f"{'fails' if before.returncode else 'PASSES'} (rc {before.returncode}):"
        f" {before.error or '-'}",
        "migrated": f"{'trains' if after.returncode == 0 else 'FAILS'} (rc {after.returncode})"
        + (f": {after.error}" if after.returncode else "")
        + (f"; migrate rc {migrate_rc} {migrate_note}" if migrate_rc not in (0, 1) else ""),
        "ran on": after.emulated,
        "steps": str(len(losses)),
        "loss": f"{losses[0]:.4f} -> {losses[-1]:.4f}" if losses else "-",
        "seconds": f"{before.seconds:.0f} / {after.seconds:.0f}",
        "missing blobs": str(len(missing)),
    }


def table(rows: Sequence[dict[str, str]]) -> str:
    if not rows:
        return ""
    keys = list(rows[0])
    widths = [max(len(k), *(len(r[k]) for r in rows)) for k in keys]
    lines = [" | ".join(k.ljust(w) for k, w in zip(keys, widths, strict=True))]
    lines.append("-|-".join("-" * w for w in widths))
    lines += [" | ".join(r[k].ljust(w) for k, w in zip(keys, widths, strict=True)) for r in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.emulated_ports")
    parser.add_argument("--clones", type=Path, required=True, help="folder of upstream clones")
    parser.add_argument("--work", type=Path, default=Path("/tmp/emulated_ports"))
    parser.add_argument("--project", action="append", choices=[p.name for p in PORTS])
    parser.add_argument("--timeout", type=float, default=900, help="seconds per training run")
    options = parser.parse_args(argv)
    chosen = [p for p in PORTS if not options.project or p.name in options.project]
    rows = []
    for port in chosen:
        print(f"{port.name} ...", file=sys.stderr, flush=True)
        rows.append(bench(port, options.clones, options.work, options.timeout))
    print(table(rows))
    print("seconds: unmigrated run / migrated run, start-up included")
    bad = [r for r in rows if not r["unmigrated"].startswith("fails")]
    bad += [r for r in rows if not r["migrated"].startswith("trains")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
