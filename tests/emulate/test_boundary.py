"""The emulator and the static tool stay apart: neither imports the other's code.

The emulator imports torch and patches it for good; the migration promises never to import
or run the user's code and must start without torch. They meet only where the tool starts
an emulated process: `migrate run` runs `python -m npu_emulator`, and `migrate smoke`
builds its training processes' environment with `npu_emulator.emulation_env`, which is
stdlib-only. The one thing the emulator reads of the tool is the API data
(`migrator.data`, stdlib-only), the facts of each torch-npu release.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOL = ("migrator", "rules", "target_dit4dit")
#: The one place the tool names the emulator in-process (the environment, not the emulator).
SMOKE_RUNNER = ROOT / "target_dit4dit" / "smoke" / "runner.py"


def _imports(folder: Path) -> Iterator[tuple[Path, str]]:
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, alias.name
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                yield path, node.module


def _top(name: str) -> str:
    return name.split(".")[0]


def test_the_emulator_imports_nothing_of_the_static_tool_but_its_data() -> None:
    found = {
        (str(p.relative_to(ROOT)), n) for p, n in _imports(ROOT / "npu_emulator") if _top(n) in TOOL
    }
    # The released API surface (releases.py reads the kernels of each torch-npu release).
    assert found == {("npu_emulator/releases.py", "migrator")}


def test_the_data_the_emulator_reads_loads_nothing_else_of_the_tool() -> None:
    code = (
        "import sys\n"
        "from npu_emulator import releases\n"
        "releases.has_npu_kernel(releases.DEFAULT_RELEASE, '_fused_adamw_')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('migrator', 'rules', 'target_dit4dit', 'torch')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['migrator', 'migrator.data']"


def test_the_static_tool_imports_only_the_emulators_environment() -> None:
    found = [
        (str(p.relative_to(ROOT)), n)
        for package in TOOL
        for p, n in _imports(ROOT / package)
        if _top(n) == "npu_emulator"
    ]
    assert found == [(str(SMOKE_RUNNER.relative_to(ROOT)), "npu_emulator")]


def test_building_the_emulation_environment_imports_no_torch() -> None:
    code = (
        "import sys\n"
        "from npu_emulator import emulation_env\n"
        "emulation_env(devices=2)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'torch'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_dry_run_imports_no_emulator(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(1).cuda()\n")
    code = (
        "import sys\n"
        "from migrator.cli import main\n"
        f"try:\n    main([{str(tmp_path)!r}, '--dry-run', '--quiet', '--no-cache'])\n"
        "except SystemExit:\n    pass\n"
        "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in "
        "('npu_emulator', 'torch')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert "LOADED []" in done.stdout, done.stdout + done.stderr
