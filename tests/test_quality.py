"""Lint and type checks are part of the suite, so CI proves them on every change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["migrator", "rules", "target_dit4dit", "npu_emulator"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=900
    )


def test_ruff_check() -> None:
    done = _run("ruff", "check", *PACKAGES, "tests")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format() -> None:
    done = _run("ruff", "format", "--check", *PACKAGES, "tests")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict() -> None:
    done = _run("mypy", "--strict", *PACKAGES)
    assert done.returncode == 0, done.stdout + done.stderr
