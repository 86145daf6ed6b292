from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from target_dit4dit.smoke.runner import (
    SmokeFiles,
    _run,
    child_env,
    emulated,
    launch_command,
)


def _files(tmp_path: Path) -> SmokeFiles:
    return SmokeFiles(
        workdir=tmp_path,
        pipeline=tmp_path / "pipeline",
        train_config=tmp_path / "configs/train.yaml",
        deepspeed_config=tmp_path / "configs/ds.json",
        accelerate_config=tmp_path / "configs/acc.yaml",
        run_dir=tmp_path / "runs/smoke",
        log=tmp_path / "train.log",
    )


def test_children_run_offline_untracked_and_find_checkout_then_launcher(tmp_path: Path) -> None:
    env = child_env(Path("/repo"), _files(tmp_path), "cpu", 2, base={"PYTHONPATH": "/mine"})
    paths = env["PYTHONPATH"].split(os.pathsep)
    assert paths[0] == "/repo"
    assert (Path(paths[1]) / "target_dit4dit" / "smoke" / "launch.py").is_file()
    assert paths[-1] == "/mine"
    assert env["WANDB_MODE"] == "disabled"
    assert env["HF_HUB_OFFLINE"] == env["TRANSFORMERS_OFFLINE"] == "1"
    assert env["CUDA_VISIBLE_DEVICES"] == ""
    assert env["DS_ACCELERATOR"] == "cpu"


def test_real_npu_runs_keep_the_device_visible(tmp_path: Path) -> None:
    env = child_env(Path("/repo"), _files(tmp_path), "npu", 8, base={})
    assert "CUDA_VISIBLE_DEVICES" not in env
    assert "DS_ACCELERATOR" not in env


def test_extra_variables_override_the_defaults(tmp_path: Path) -> None:
    extra = {"DS_ACCELERATOR": "npu", "EMU": "1"}
    env = child_env(Path("/repo"), _files(tmp_path), "emulated-npu", 1, extra, base={})
    assert (env["DS_ACCELERATOR"], env["EMU"]) == ("npu", "1")


def test_emulated_runs_keep_the_checkout_path_and_get_one_npu_per_process(
    tmp_path: Path,
) -> None:
    from npu_emulator import settings

    base = child_env(Path("/repo"), _files(tmp_path), "emulated-npu", 2, base={"PYTHONPATH": "/x"})
    assert "DS_ACCELERATOR" not in base, "DeepSpeed must pick its NPU accelerator"
    env = emulated(base, 2)
    paths = env["PYTHONPATH"].split(os.pathsep)
    assert "/repo" in paths and "/x" in paths
    assert paths.index("/repo") < paths.index("/x")
    assert env[settings.ENV_ACTIVE] == "1"
    assert env[settings.ENV_DEVICES] == "2"


def test_launch_goes_through_accelerate_and_the_launch_module(tmp_path: Path) -> None:
    command = launch_command(Path("/repo"), _files(tmp_path), 2, "/py", 1234)
    assert command[:3] == ["/py", "-m", "accelerate.commands.launch"]
    assert command[command.index("--num_processes") + 1] == "2"
    assert command[command.index("--main_process_port") + 1] == "1234"
    module = command.index("target_dit4dit.smoke.launch")
    assert command[module - 1] == "-m"
    assert command[module + 1] == "/repo/DiT4DiT/training/train.py"
    assert command[-2:] == ["--config_yaml", str(tmp_path / "configs/train.yaml")]


def test_timeout_ends_every_process_of_the_run(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    script = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    start = time.monotonic()
    returncode, timed_out = _run(
        [sys.executable, "-c", script], tmp_path, dict(os.environ), tmp_path / "log", 3.0
    )
    assert (returncode, timed_out) == (None, True)
    assert time.monotonic() - start < 30
    grandchild = int(pid_file.read_text())
    for _ in range(50):
        try:
            os.kill(grandchild, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("the grandchild process outlived the timeout")


def test_run_records_output_and_status(tmp_path: Path) -> None:
    returncode, timed_out = _run(
        [sys.executable, "-c", "print('hello'); raise SystemExit(3)"],
        tmp_path,
        dict(os.environ),
        tmp_path / "log",
        30.0,
    )
    assert (returncode, timed_out) == (3, False)
    assert (tmp_path / "log").read_text() == "hello\n"
