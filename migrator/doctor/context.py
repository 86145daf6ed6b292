"""What the checks share: the host, the options, the project's files, probes run once."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from migrator.doctor.host import Host
from migrator.doctor.model import CheckResult
from migrator.engine.walk import walk

# Package versions come from installed metadata and package folders from `find_spec`: no
# package is imported, so a broken torch_npu cannot take this probe down with it.
VERSIONS_PROBE = """
import importlib.metadata as m, importlib.util as u, json, sys
names = ("torch", "torch-npu", "torchvision", "torchaudio", "accelerate", "deepspeed",
         "mx-driving", "decord", "eva-decord")
versions = {}
for name in names:
    try:
        versions[name] = m.version(name)
    except m.PackageNotFoundError:
        versions[name] = None
folders = {}
for name in ("torch", "torch_npu"):
    try:
        spec = u.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    found = list(spec.submodule_search_locations or []) if spec else []
    folders[name] = found[0] if found else None
print(json.dumps({"python": sys.executable, "version": sys.version.split()[0],
                  "packages": versions, "folders": folders}))
"""

TEXT_SUFFIXES = (".py", ".sh", ".bash", ".yaml", ".yml", ".json", ".toml", ".cfg", ".env")


@dataclass(frozen=True)
class Options:
    project: Path | None = None
    model: Path | None = None
    data: Path | None = None
    # CANN release -> the driver release Ascend pairs with it (None: the shipped table).
    driver_table: dict[str, tuple[str, str]] | None = None


@dataclass(frozen=True)
class Imported:
    """`import NAME` in the probed interpreter: whether it worked, and the error if not."""

    ok: bool
    error: str
    stdout: str = ""


@dataclass
class Context:
    host: Host
    options: Options
    _imports: dict[str, Imported] = field(default_factory=dict)

    @cached_property
    def stack(self) -> dict[str, Any] | None:
        """The versions probe's answer; None when no interpreter could be run."""
        ran = self.host.probe(VERSIONS_PROBE)
        if ran is None or ran.returncode != 0:
            return None
        try:
            found: dict[str, Any] = json.loads(ran.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return None
        return found

    def version(self, distribution: str) -> str | None:
        if self.stack is None:
            return None
        found: str | None = self.stack["packages"].get(distribution)
        return found

    def imports(self, statement: str) -> Imported:
        """Run `statement` (an import, maybe a print) alone in the probed interpreter."""
        if statement not in self._imports:
            ran = self.host.probe(statement)
            if ran is None:
                self._imports[statement] = Imported(False, "no interpreter to probe")
            else:
                error = _last_error(ran.stderr) if ran.returncode else ""
                self._imports[statement] = Imported(ran.returncode == 0, error, ran.stdout)
        return self._imports[statement]

    @cached_property
    def files(self) -> tuple[str, ...]:
        """The project's files (relative POSIX paths), as the migration walks them."""
        project = self.options.project
        if project is None:
            return ()
        return tuple(walk(project).files)

    @cached_property
    def texts(self) -> dict[str, str]:
        project = self.options.project
        found: dict[str, str] = {}
        if project is None:
            return found
        base = project if project.is_dir() else project.parent
        for rel in self.files:
            if rel.endswith(TEXT_SUFFIXES) or rel.endswith("requirements.txt"):
                try:
                    found[rel] = (base / rel).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
        return found

    def uses(self, module: str) -> list[str]:
        """Python files of the project that import `module` (or a submodule)."""
        pattern = re.compile(rf"^\s*(?:import|from)\s+{re.escape(module)}\b", re.MULTILINE)
        return [
            rel for rel, text in self.texts.items() if rel.endswith(".py") and pattern.search(text)
        ]

    def scripts(self) -> Iterator[tuple[str, str]]:
        for rel, text in self.texts.items():
            if rel.endswith((".sh", ".bash")):
                yield rel, text


def _last_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    for line in reversed(lines):
        if re.match(r"^[A-Za-z_.]*(Error|Exception)\b", line):
            return line
    return lines[-1] if lines else "exited with an error and printed nothing"


Check = Callable[["Context"], list[CheckResult]]
