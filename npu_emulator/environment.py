"""The environment that makes a process, and every process it starts, an emulated host.

Child processes (``accelerate launch``, ``torchrun``, multiprocessing "spawn") start a
fresh interpreter. They are emulated through their environment: ``PYTHONPATH`` holds the
stand-in packages, whose ``torch_npu`` metadata declares a ``torch.backends`` entry point,
so ``import torch`` in the child loads the stand-in, exactly as torch-npu autoloads on a
real host; ``NPU_MIGRATOR_EMULATE_HOME`` lets the stand-in import this package.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from npu_emulator import releases, settings
from npu_emulator.stand_ins import SHIMS

#: The folder that holds the ``npu_emulator`` package.
HOME = Path(__file__).resolve().parents[1]


def emulation_env(
    base: Mapping[str, str] | None = None,
    *,
    devices: int | None = None,
    report_dir: str | os.PathLike[str] | None = None,
    torch_npu: str | None = None,
) -> dict[str, str]:
    """A copy of ``base`` (default ``os.environ``) that makes child processes emulated.

    ``devices`` sets how many NPUs the host has; ``report_dir`` asks every process to
    write a JSON report of what it did there (see report.py); ``torch_npu`` names the
    torch-npu release the emulated host runs (see releases.py).
    """
    env = dict(os.environ if base is None else base)
    env[settings.ENV_ACTIVE] = "1"
    env[settings.ENV_HOME] = str(HOME)
    # What CANN's set_env.sh exports on a real host; DeepSpeed's NPU op builders read it.
    env.setdefault(settings.ENV_CANN, str(SHIMS / "cann"))
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(SHIMS)]
    env["PYTHONPATH"] = os.pathsep.join([str(SHIMS), *rest])
    if devices is not None:
        if devices < 1:
            raise ValueError(f"devices must be >= 1, got {devices}")
        env[settings.ENV_DEVICES] = str(devices)
    if report_dir is not None:
        env[settings.ENV_REPORT] = str(Path(report_dir).resolve())
    if torch_npu is not None:
        env[releases.ENV_RELEASE] = releases.check(torch_npu)
    return env


def put_stand_ins_on_path() -> None:
    """Make ``import torch_npu`` / ``import mx_driving`` work in this process."""
    if str(SHIMS) not in sys.path:
        sys.path.insert(1 if sys.path else 0, str(SHIMS))
