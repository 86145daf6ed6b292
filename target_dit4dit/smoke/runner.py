"""Run a DiT4DiT checkout's own ``train.py`` on tiny generated inputs and judge the run.

``run_smoke`` writes a tiny Cosmos-Predict2.5 pipeline, a tiny RoboTwin dataset, the training
YAML and the DeepSpeed/accelerate configs into a work folder, then starts::

    python -m accelerate.commands.launch --config_file ACCELERATE.yaml --num_processes N \\
        -m target_dit4dit.smoke.launch CHECKOUT/DiT4DiT/training/train.py --config_yaml TRAIN.yaml

from the checkout's root, as the shipped run scripts do (``PYTHONPATH=$(pwd)``; the
unmigrated trainer also reads its DeepSpeed config relative to the working directory). It
runs in its own session so that a timeout ends every rank, and is judged by
``target_dit4dit.smoke.checks``.

Where it runs: on a host where ``torch_npu`` imports, on the real NPU; elsewhere under the NPU
emulator (``emulate=True``, the default), else on the plain CPU. A checkout that is migrated
names the ``"npu"`` device, so only the first two can pass it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from target_dit4dit.smoke import checks
from target_dit4dit.smoke.config import (
    RUN_ID,
    Precision,
    accelerate_config,
    deepspeed_config,
    train_config,
    write_json,
    write_yaml,
)
from target_dit4dit.smoke.dataset import write_tiny_dataset
from target_dit4dit.smoke.pipeline import write_tiny_pipeline

Device = Literal["npu", "emulated-npu", "cpu"]

TRAIN_SCRIPT = Path("DiT4DiT/training/train.py")
# The folder that holds the ``target_dit4dit`` package: the launch module must import from it
# even when the interpreter running the checkout has no npu-migrator installed.
_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
_LOG_TAIL_LINES = 60


@dataclass(frozen=True)
class SmokeFiles:
    """Everything a smoke run reads or writes, inside one work folder."""

    workdir: Path
    pipeline: Path
    train_config: Path
    deepspeed_config: Path
    accelerate_config: Path
    run_dir: Path
    log: Path

    def checkpoint(self, step: int) -> Path:
        return self.run_dir / "checkpoints" / f"steps_{step}_pytorch_model.pt"

    @property
    def final_model(self) -> Path:
        return self.run_dir / "final_model" / "pytorch_model.pt"


@dataclass(frozen=True)
class SmokeResult:
    passed: bool
    seconds: float
    command: tuple[str, ...]
    log_tail: str
    returncode: int | None
    timed_out: bool
    device: Device
    checks: tuple[checks.CheckResult, ...]
    files: SmokeFiles


def prepare(
    workdir: Path,
    *,
    zero: int = 2,
    num_processes: int = 1,
    precision: Precision = "bf16",
    max_train_steps: int = 2,
) -> SmokeFiles:
    """Write the tiny pipeline, the tiny dataset and all configs into ``workdir``."""
    workdir = workdir.resolve()
    configs = workdir / "configs"
    pipeline = write_tiny_pipeline(workdir / "pipeline")
    dataset = write_tiny_dataset(workdir / "data")
    run_root = workdir / "runs"
    ds_path = write_json(
        configs / f"ds_zero{zero}_{precision}.json", deepspeed_config(zero, precision)
    )
    return SmokeFiles(
        workdir=workdir,
        pipeline=pipeline,
        train_config=write_yaml(
            configs / "train.yaml",
            train_config(
                pipeline=pipeline,
                dataset=dataset,
                run_root=run_root,
                precision=precision,
                max_train_steps=max_train_steps,
            ),
        ),
        deepspeed_config=ds_path,
        accelerate_config=write_yaml(
            configs / f"accelerate_zero{zero}_{num_processes}proc.yaml",
            accelerate_config(ds_path, num_processes),
        ),
        run_dir=run_root / RUN_ID,
        log=workdir / "train.log",
    )


def emulated(env: Mapping[str, str], num_processes: int) -> dict[str, str]:
    """`env` made to run every training process on the emulated ``"npu"`` device.

    This is the one place the NPU emulator (``npu_emulator``) plugs in: one emulated NPU
    per process, as a node would give accelerate.
    """
    from npu_emulator import emulation_env

    return emulation_env(env, devices=num_processes)


def has_torch_npu(python: str) -> bool:
    """Whether ``python`` can import ``torch_npu``: then the run uses the real NPU."""
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch_npu') is None)"
    return subprocess.run([python, "-c", probe], check=False).returncode == 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def child_env(
    repo: Path,
    files: SmokeFiles,
    device: Device,
    num_processes: int,
    extra: Mapping[str, str] | None = None,
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of the training processes: offline, untracked, quiet, findable."""
    env = dict(os.environ if base is None else base)
    paths = [str(repo.resolve()), str(_PACKAGE_ROOT)]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env.update(
        {
            "PYTHONPATH": os.pathsep.join(paths),
            "PYTHONUNBUFFERED": "1",
            "WANDB_MODE": "disabled",
            "WANDB_DIR": str(files.workdir / "wandb"),
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(files.workdir / "hf_home"),
            "TOKENIZERS_PARALLELISM": "false",
            # The trainer logs through rich, which wraps at 80 columns off a terminal and
            # would split the per-step metrics lines the checks read.
            "COLUMNS": "1000",
        }
    )
    if device != "npu":
        threads = max(1, (os.cpu_count() or 1) // num_processes)
        env.update({"CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": str(threads)})
    if device == "cpu":
        env["DS_ACCELERATOR"] = "cpu"
    env.update(extra or {})
    return env


def launch_command(
    repo: Path, files: SmokeFiles, num_processes: int, python: str, port: int
) -> list[str]:
    return [
        python,
        "-m",
        "accelerate.commands.launch",
        "--config_file",
        str(files.accelerate_config),
        "--num_processes",
        str(num_processes),
        "--main_process_port",
        str(port),
        "-m",
        "target_dit4dit.smoke.launch",
        str(repo.resolve() / TRAIN_SCRIPT),
        "--config_yaml",
        str(files.train_config),
    ]


def _run(
    command: list[str], cwd: Path, env: Mapping[str, str], log: Path, timeout: float
) -> tuple[int | None, bool]:
    """Run ``command`` in its own session; on timeout end the whole session."""
    with log.open("w") as out:
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=dict(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            return proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            for sig, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    continue
            return None, True


def run_smoke(
    repo: Path,
    *,
    zero: int = 2,
    num_processes: int = 1,
    emulate: bool = True,
    workdir: Path,
    timeout: float = 1800.0,
    precision: Precision = "bf16",
    max_train_steps: int = 2,
    python: str | None = None,
) -> SmokeResult:
    """Train ``repo`` (a DiT4DiT checkout) for a few steps and judge the run."""
    python = python or sys.executable
    train_py = repo / TRAIN_SCRIPT
    if not train_py.is_file():
        raise FileNotFoundError(f"{train_py} not found: is {repo} a DiT4DiT checkout?")
    files = prepare(
        workdir,
        zero=zero,
        num_processes=num_processes,
        precision=precision,
        max_train_steps=max_train_steps,
    )
    device: Device = "cpu"
    if has_torch_npu(python):
        device = "npu"
    elif emulate:
        device = "emulated-npu"
    env = child_env(repo, files, device, num_processes)
    if device == "emulated-npu":
        env = emulated(env, num_processes)
    command = launch_command(repo, files, num_processes, python, _free_port())
    start = time.monotonic()
    returncode, timed_out = _run(command, repo, env, files.log, timeout)
    seconds = time.monotonic() - start
    log = files.log.read_text(errors="replace")
    records = checks.parse_steps(log)
    results = [
        checks.check_exit(returncode, timed_out),
        checks.check_steps(records, max_train_steps),
        checks.check_eval(records),
    ]
    # train_config saves at step max_train_steps - 1 and once more at the end.
    for checkpoint in (files.checkpoint(max_train_steps - 1), files.final_model):
        results.append(checks.check_checkpoint(checkpoint, python, env))
    return SmokeResult(
        passed=all(r.passed for r in results),
        seconds=seconds,
        command=tuple(command),
        log_tail="\n".join(log.splitlines()[-_LOG_TAIL_LINES:]),
        returncode=returncode,
        timed_out=timed_out,
        device=device,
        checks=tuple(results),
        files=files,
    )
