"""The one seam between the checks and the machine they look at."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

PROBE_TIMEOUT_S = 120


@dataclass(frozen=True)
class Ran:
    """A finished command: exit status and text output."""

    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Host:
    """What the checks may see: files under `root`, `env`, commands on env's PATH, `python`.

    Absolute host paths (`/usr/local/Ascend/...`, `/dev/davinci0`) are read under `root`,
    so a test's temporary folder can stand for `/`.
    """

    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    root: Path = Path("/")
    python: str | None = None

    def path(self, absolute: str | Path) -> Path:
        """`absolute` (a host path) as a path under this host's root."""
        text = str(absolute)
        return self.root / text.lstrip("/") if text.startswith("/") else Path(text)

    def home(self) -> Path | None:
        home = self.env.get("HOME")
        return self.path(home) if home else None

    def which(self, name: str) -> str | None:
        return shutil.which(name, path=self.env.get("PATH", ""))

    def run(self, argv: Sequence[str], timeout: float = 30, cwd: str | None = None) -> Ran | None:
        """Run a command found on PATH; None when it is not there or cannot start."""
        found = self.which(argv[0]) if os.sep not in argv[0] else argv[0]
        if found is None:
            return None
        try:
            done = subprocess.run(
                [found, *argv[1:]], env=dict(self.env), capture_output=True, text=True,
                timeout=timeout, check=False, stdin=subprocess.DEVNULL, cwd=cwd,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as error:
            return Ran(-1, "", str(error))
        return Ran(done.returncode, done.stdout, done.stderr)

    def interpreter(self) -> str | None:
        """The interpreter to probe: `python`, else the active environment's first on PATH."""
        if self.python is not None:
            if os.sep not in self.python:
                return self.which(self.python)
            return self.python if os.access(self.python, os.X_OK) else None
        return self.which("python") or self.which("python3") or sys.executable

    def probe(self, code: str) -> Ran | None:
        """`INTERPRETER -c code` in this host's environment (its PYTHONPATH included).

        It runs in an empty folder: `-c` puts the working folder first on sys.path, and run
        from a project's checkout it would import the project's own modules.
        """
        python = self.interpreter()
        if python is None:
            return None
        with tempfile.TemporaryDirectory(prefix="migrate-doctor-") as empty:
            return self.run([python, "-c", code], timeout=PROBE_TIMEOUT_S, cwd=empty)
