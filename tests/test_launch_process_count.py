"""DIT012's counting lines, run by bash: a count without importing torch_npu."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from migrator.contract.rule import RuleOptions
from migrator.core.target import NPU
from migrator.engine.files import migrate_text
from migrator.engine.settings import Settings

SCRIPT = b"accelerate launch \\\n  --num_processes 8 \\\n  train.py\n"
# A stand-in for accelerate that prints the process count it was given.
STUB = '#!/bin/sh\nwhile [ "$1" != --num_processes ]; do shift; done\necho "processes=$2"\n'


def _run(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = migrate_text("scripts/train.sh", SCRIPT, Settings(NPU, ("DIT012",), RuleOptions()))
    assert result.new_data is not None
    script = tmp_path / "train.sh"
    script.write_bytes(result.new_data)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "accelerate").write_text(STUB)
    (bin_dir / "accelerate").chmod(0o755)
    # No python on PATH: the count must not need one (nor torch_npu, nor CANN).
    path = f"{bin_dir}:/usr/bin:/bin"
    return subprocess.run(
        ["bash", str(script)],
        env={"PATH": path, **env},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        cwd=tmp_path,
    )


def test_the_generated_lines_never_import_the_runtime() -> None:
    result = migrate_text("scripts/train.sh", SCRIPT, Settings(NPU, ("DIT012",), RuleOptions()))
    assert result.new_data is not None
    assert b"python -c" not in result.new_data and b"torch_npu" not in result.new_data


def test_the_visible_devices_variable_is_counted(tmp_path: Path) -> None:
    done = _run(tmp_path, {"ASCEND_RT_VISIBLE_DEVICES": "0,1,2"})
    assert done.stdout.strip() == "processes=3"
    assert "only 3 NPUs visible" in done.stderr
    assert "integer expression expected" not in done.stderr


def test_the_count_is_capped_at_the_scripts_own(tmp_path: Path) -> None:
    ids = ",".join(str(i) for i in range(16))
    done = _run(tmp_path, {"ASCEND_RT_VISIBLE_DEVICES": ids})
    assert done.stdout.strip() == "processes=8"
    assert done.stderr == ""


@pytest.mark.skipif(
    any(Path("/dev").glob("davinci[0-9]*")), reason="this host has NPU device nodes"
)
def test_no_visible_npu_stops_with_one_line(tmp_path: Path) -> None:
    done = _run(tmp_path, {})
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "no NPU visible (ASCEND_RT_VISIBLE_DEVICES is unset and there is no /dev/davinciN): "
        "is the driver installed?"
    ]
