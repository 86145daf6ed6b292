"""Time `migrate --dry-run` against stdlib `ast.parse` on a corpus, and print the figures.

    python benchmarks/bench.py                     # the installed torch package's source
    python benchmarks/bench.py --corpus PATH       # any tree (e.g. an unpacked diffusers wheel)
    python benchmarks/bench.py --corpus examples/cuda_trainer --short

It prints files, lines, seconds for reading + `ast.parse` of every file (one process),
seconds for `migrate --dry-run` with --jobs 1 and --jobs 2 (each a fresh process, its diff
sent to /dev/null), the ratio jobs-1 / ast, files/s, lines/s and the peak RSS of the largest
process. `--scaling` also runs jobs 1 on the first quarter and half of the files to show
that peak memory does not grow with the number of files. Nothing is asserted: speed and
memory targets live here, as figures, not in timed tests.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from migrator.engine.walk import walk

WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"{seconds} {peak} {code}")
"""


def python_files(root: Path) -> list[Path]:
    return [root / rel for rel in walk(root).files if rel.endswith(".py")]


def time_ast(files: list[Path]) -> tuple[float, int]:
    # Read every file once first: the figure is parsing, not the disk (a cold page cache
    # would flatter the ratio, since migrate runs after this and finds the files cached).
    for file in files:
        file.read_bytes()
    lines = 0
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for file in files:
            data = file.read_bytes()
            lines += data.count(b"\n")
            with contextlib.suppress(SyntaxError, ValueError):
                ast.parse(data)
    return time.perf_counter() - start, lines


def time_migrate(root: Path, jobs: int, extra: list[str]) -> tuple[float, int, int]:
    migrate = shutil.which("migrate", path=os.path.dirname(sys.executable))
    # --no-cache: every run does the whole work (the cache would skip unchanged files).
    command = [
        migrate or "migrate",
        str(root),
        "--dry-run",
        "--no-cache",
        "--jobs",
        str(jobs),
        *extra,
    ]
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *command], capture_output=True, text=True, check=True
    )
    seconds, peak_kib, code = done.stdout.split()
    return float(seconds), int(peak_kib), int(code)


def subset(files: list[Path], root: Path, fraction: float, into: Path) -> Path:
    chosen = files[: max(1, int(len(files) * fraction))]
    target = into / f"part-{int(fraction * 100)}"
    for file in chosen:
        destination = target / file.relative_to(root)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, destination)
    return target


def main() -> int:
    import torch  # the default corpus: the source of the installed torch release

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=Path(torch.__file__).parent)
    parser.add_argument("--short", action="store_true", help="jobs 1 only, no scaling (CI)")
    parser.add_argument("--scaling", action="store_true", help="also 25%% and 50%% subsets")
    parser.add_argument("--full-parse", action="store_true", help="time the slow reference path")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = parser.parse_args()

    root = args.corpus.resolve()
    files = python_files(root)
    ast_seconds, lines = time_ast(files)
    extra = ["--full-parse"] if args.full_parse else []
    figures: dict[str, object] = {
        "corpus": str(root),
        "files": len(files),
        "lines": lines,
        "ast_parse_s": round(ast_seconds, 2),
        "machine": (
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        ),
    }
    jobs_list = [1] if args.short else [1, 2]
    for jobs in jobs_list:
        seconds, peak, code = time_migrate(root, jobs, extra)
        if code not in (0, 1):
            print(f"migrate exited {code}", file=sys.stderr)
        figures[f"migrate_jobs{jobs}_s"] = round(seconds, 2)
        figures[f"ratio_jobs{jobs}"] = round(seconds / ast_seconds, 2)
        figures[f"files_per_s_jobs{jobs}"] = round(len(files) / seconds, 1)
        figures[f"lines_per_s_jobs{jobs}"] = round(lines / seconds)
        figures[f"peak_rss_mib_jobs{jobs}"] = round(peak / 1024, 1)
    if args.scaling and not args.short:
        with tempfile.TemporaryDirectory() as tmp:
            for fraction in (0.25, 0.5):
                part = subset(files, root, fraction, Path(tmp))
                _, peak, _ = time_migrate(part, 1, extra)
                figures[f"peak_rss_mib_{int(fraction * 100)}pct_files"] = round(peak / 1024, 1)
    for key, value in figures.items():
        print(f"{key:28} {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
