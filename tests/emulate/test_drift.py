"""The project's own calls of torch names newer than the host's torch 2.7.1 fail as there.

Libraries (installed under site-packages) are left alone: they choose their code paths by
the torch they see.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.emulate.conftest import ROOT

LIBRARY = """\
import torch


def allocated():
    return torch.accelerator.memory_allocated()
"""

TRAIN = """\
import torch
import helper_lib

print("library:", helper_lib.allocated())
print("old name:", torch.accelerator.device_count())
print("probe:", hasattr(torch.accelerator, "memory_allocated"))
try:
    from torch.accelerator import device_index
except ImportError as error:
    print("import:", error)
with torch.accelerator.device_index(0):
    pass
"""


# Before, `torch.accelerator.device_index` (torch >= 2.8) ran here and failed only on the host.
def test_a_project_file_calling_a_newer_torch_name_fails_as_on_the_host(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(TRAIN)
    library = tmp_path / "venv" / "lib" / "site-packages"
    library.mkdir(parents=True)
    (library / "helper_lib.py").write_text(LIBRARY)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(library)])
    env.pop("NPU_MIGRATOR_EMULATE_PROJECT", None)
    done = subprocess.run(
        [sys.executable, "-m", "migrator", "run", "--emulate-npu", "--", "train.py"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    out = done.stdout
    assert "library: 0" in out, out + done.stderr
    assert "old name: 1" in out
    assert "probe: False" in out
    assert "import: cannot import name 'device_index' from 'torch.accelerator'" in out
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    expected = textwrap.dedent(
        """\
        AttributeError: module 'torch.accelerator' has no attribute 'device_index' (npu
        emulator: the host's torch 2.7.1 lacks torch.accelerator.device_index, used at"""
    ).replace("\n", " ")
    assert last.startswith(expected), done.stderr
    assert "used at train.py:11;" in last
