"""Shared set-up for the emulator tests.

``install()`` changes torch for the whole process and cannot be undone, so the tests
that want an emulated torch share this pytest process (the ``npu`` fixture), and every
test that needs a pristine torch, another device count, or patches such as
transfer_to_npu runs its code in a subprocess (``run_python``), with a timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def npu() -> ModuleType:
    """``torch.npu`` of this (now emulated) pytest process."""
    from npu_emulator import install

    install()
    import torch

    module: ModuleType = torch.npu
    return module


def _python_env(*, emulated: bool, **emulation: object) -> dict[str, str]:
    """The environment of a child interpreter that can import this checkout."""
    from npu_emulator import emulation_env

    base = dict(os.environ)
    base["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *[p for p in base.get("PYTHONPATH", "").split(os.pathsep) if p]]
    )
    return emulation_env(base, **emulation) if emulated else base  # type: ignore[arg-type]


def _run_python(
    code: str,
    *,
    emulated: bool = True,
    args: list[str] | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter; emulated through the environment only."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *(args or [])],
        env=env if env is not None else _python_env(emulated=emulated),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def python_env() -> Callable[..., dict[str, str]]:
    """``python_env(emulated=True, devices=2, report_dir=...)``: a child's environment."""
    return _python_env


@pytest.fixture
def run_python() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_python(code, emulated=True, ...)``: run code in a fresh interpreter."""
    return _run_python
