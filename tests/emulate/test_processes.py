"""Running programs under emulation: the CLI, child processes, the per-process report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from npu_emulator.settings import visible_device_count

RunPython = Callable[..., subprocess.CompletedProcess[str]]
PythonEnv = Callable[..., dict[str, str]]


def _emulate(
    args: list[str], env: dict[str, str], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "npu_emulator", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_cli_runs_a_script_as_main(tmp_path: Path, python_env: PythonEnv) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "helper.py").write_text("VALUE = 41\n")
    (folder / "main.py").write_text(
        textwrap.dedent(
            """
            import json, sys
            import torch
            import helper  # found because the script's folder is first on sys.path
            if __name__ == "__main__":
                x = torch.ones(2, device="npu") * helper.VALUE
                print(json.dumps({"argv": sys.argv, "x": x.tolist(), "dev": str(x.device)}))
                sys.exit(3)
            """
        )
    )
    result = _emulate(["main.py", "--flag", "v"], python_env(emulated=False), cwd=folder)
    assert result.returncode == 3, result.stderr
    seen = json.loads(result.stdout)
    assert seen == {"argv": ["main.py", "--flag", "v"], "x": [41.0, 41.0], "dev": "npu:0"}


def test_cli_reports_a_missing_script_in_one_line(tmp_path: Path, python_env: PythonEnv) -> None:
    result = _emulate(["nope.py"], python_env(emulated=False), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == "npu emulator: no such script: nope.py"


def test_child_processes_are_emulated(tmp_path: Path, python_env: PythonEnv) -> None:
    script = tmp_path / "spawner.py"
    script.write_text(
        textwrap.dedent(
            """
            import subprocess, sys
            import torch.multiprocessing as mp

            def child(queue):
                import torch
                queue.put(str(torch.ones(1, device="npu").device))

            if __name__ == "__main__":
                ctx = mp.get_context("spawn")
                queue = ctx.Queue()
                proc = ctx.Process(target=child, args=(queue,))
                proc.start()
                print("spawn", queue.get(timeout=60))
                proc.join()
                # a plain interpreter started by the program: `import torch` autoloads
                code = "import torch; print(torch.npu.device_count(), torch.cuda.is_available())"
                out = subprocess.check_output([sys.executable, "-c", code], text=True)
                print("subprocess", out)
            """
        )
    )
    result = _emulate(["--devices", "2", str(script)], python_env(emulated=False), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "spawn npu:0" in result.stdout
    assert "subprocess 2 False" in result.stdout


def test_pristine_interpreter_has_no_npu(run_python: RunPython) -> None:
    result = run_python(
        "import torch, importlib.util; print(hasattr(torch, 'npu'), "
        "importlib.util.find_spec('torch_npu'))",
        emulated=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "None"]


def test_visible_devices_narrow_the_host() -> None:
    env = {"NPU_MIGRATOR_EMULATE_DEVICES": "4"}
    assert visible_device_count(env) == 4
    assert visible_device_count({**env, "ASCEND_RT_VISIBLE_DEVICES": "1,3,7"}) == 2
    assert visible_device_count({}) == 1


def test_child_environment_sets_devices_and_writes_a_report(
    tmp_path: Path, run_python: RunPython, python_env: PythonEnv
) -> None:
    env = python_env(emulated=True, devices=4, report_dir=tmp_path / "reports")
    result = run_python(
        """
        import torch
        print(torch.npu.device_count())
        w = torch.randn(4, 4, device="npu:3")
        with torch.autocast("npu", dtype=torch.bfloat16):
            (w @ w).sum()
        """,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "4"
    (path,) = (tmp_path / "reports").glob("report-*.json")
    report = json.loads(path.read_text())
    assert report["device_count"] == 4
    assert report["autocast"] == {"npu/bfloat16/enabled": 1}
    assert report["ops"]["aten.mm.default(bfloat16)"] == 1
    assert report["devices_used"] == [3]
    # torch_npu is loaded by `import torch` itself; nothing applied transfer_to_npu.
    assert report["events"] == {"torch_npu_loaded": 1}


def test_child_environment_names_a_cann_folder(python_env: PythonEnv) -> None:
    env = python_env(emulated=True)
    assert env["NPU_MIGRATOR_EMULATE"] == "1"
    assert Path(env["ASCEND_HOME_PATH"]).is_dir()  # DeepSpeed's NPU op builders need it
    assert env["PYTHONPATH"].split(os.pathsep)[0].endswith("_shims")
