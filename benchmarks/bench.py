"""Time `migrate --dry-run` against stdlib `ast.parse` on a corpus, and print the figures.

    python benchmarks/bench.py                     # the installed torch package's source
    python benchmarks/bench.py --corpus PATH       # any tree (e.g. an unpacked diffusers wheel)
    python benchmarks/bench.py --corpus examples/cuda_trainer --short
    python benchmarks/bench.py --corpus PATH --versus-gpu2ascend TOOL   # and Huawei's tool

It prints files, lines, seconds for `ast.parse` of every Python file (one fresh process that
holds nothing else, the bytes read into memory first, so neither the disk nor decoding is
timed; also with Python's garbage collector off, `ast_parse_no_gc_cpu_s`), seconds
for `migrate --dry-run --no-cache` at one process (`--jobs 1`) and at the default (the
engine decides whether a pool pays), each a fresh process with its diff sent to /dev/null
and start-up included, the ratio of each to `ast.parse`, files/s, lines/s and the peak RSS
of the largest process. Each is timed twice: wall seconds, and CPU seconds (user + system,
of the timing process for `ast.parse`, of the child for migrate); the
`cpu_ratio_*` figures compare CPU with CPU, which other work on the machine disturbs far
less than wall time. Every figure is the best of `--runs` runs (default 3). The figures are
ratios within one run on one machine: another machine, or the same one busier, moves the
seconds but much less the ratios, so quote ratios and say how busy the machine was.
`ast.parse` (each a fresh process, the better of two parses) and `migrate --jobs 1` run
in turns, and each pair's CPU ratio is printed too (`cpu_ratio_jobs1_pairs`, and their
median): a machine whose speed drifts over minutes may give the best of each side in
different minutes, which moves the best-of ratio; a pair ran in the same minute.

`--scaling` also runs jobs 1 on the first quarter and half of the files to show that peak
memory does not grow with the number of files.

`--startup` instead prints the start-up figures: the CPU seconds (user + sys, child
processes included, as `/usr/bin/time -f "%U %S"` counts them) of `migrate --version`, of
`migrate . --dry-run` over a git repository whose one file holds no rule's token
(`x = 1`), and of `migrate b.py --dry-run` over one small file that needs LibCST
(`x = torch.zeros(2).cuda()`), each the best of `--runs` fresh processes after one
warm-up run that writes the bytecode caches; and, timed the same way, two yardsticks of the
machine that the tool cannot move: `python -c pass` and `python -c "import libcst"` (0.12
s on the machine the start-up limits were set on), for comparing figures across machines.

`--instructions` instead counts the instructions (valgrind's cachegrind, `PYTHONHASHSEED=0`)
of one `ast.parse` of every file and of one `migrate --dry-run --no-cache --jobs 1`, and
their ratio, each count with its process's start-up (on a small tree that is most of
it): wall and CPU seconds on a shared or throttled machine swing by 10% between runs of
the same code, an instruction count by under 0.1%, so two checkouts are compared by
running it from each (valgrind runs migrate some 20 times slower: 15 minutes on torch).

`--versus-gpu2ascend TOOL` also times Huawei's migration tool (PyTorch GPU2Ascend, the
`pytorch_gpu2npu.sh` script of msFmkTransplt, the analysis and migration tool that ships
with the CANN toolkit under `<CANN>/ascend-toolkit/latest/tools/ms_fmk_transplt/`; see the
CANN analysis and migration tool guide on hiascend.com) on the same tree, writing into a
temporary folder: TOOL is that script or its folder; `--gpu2ascend-version` is the torch
version it is told (its `-v`). Its time over migrate's at the default is the speed-up.
Nothing is asserted: speed and memory targets live here, as figures, not in timed tests.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from migrator.engine.walk import walk

WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{seconds} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss} {code}")
"""


def python_files(root: Path) -> list[Path]:
    return [root / rel for rel in walk(root).files if rel.endswith(".py")]


def time_ast(files: list[Path], runs: int, collect: bool = True) -> tuple[float, float, int]:
    """Best of `runs` wall and CPU seconds for `ast.parse` of every file's bytes, already in
    memory, and the number of lines, timed in a fresh interpreter (`AST_TIMER`) that holds
    nothing else: Python's cyclic garbage collector walks every tracked object of a process
    now and then, so a parse timed beside a large heap (an imported torch) is slower and
    less steady. `collect=False` times it with the collector off, which on torch's source
    makes it about a fifth faster: the trees make millions of objects, and the collector
    walks them (migrate runs with it on, as Python does)."""
    listing = "\n".join(str(file) for file in files)
    done = subprocess.run(
        [sys.executable, "-c", AST_TIMER, str(runs), "1" if collect else "0"],
        input=listing, capture_output=True, text=True, check=True,
    )  # fmt: skip
    best, best_cpu, lines = done.stdout.split()
    return float(best), float(best_cpu), int(lines)


# `time_ast` in a fresh interpreter: the file paths on stdin; argv: runs, collector on (1/0).
AST_TIMER = """
import ast, contextlib, gc, sys, time, warnings
runs, collect = int(sys.argv[1]), sys.argv[2] == "1"
sources = [open(path, "rb").read() for path in sys.stdin.read().splitlines()]
lines = sum(data.count(b"\\n") for data in sources)
if not collect:
    gc.disable()
best = best_cpu = float("inf")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        for data in sources:
            with contextlib.suppress(SyntaxError, ValueError):
                ast.parse(data)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - cpu)
print(best, best_cpu, lines)
"""


def _bytecode_env() -> dict[str, str]:
    """This environment, with Python allowed to write its bytecode caches: a run with
    PYTHONDONTWRITEBYTECODE set compiles every module whose cache is stale or missing
    again each time (a user's installed package has its caches)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _timed(command: list[str], runs: int) -> tuple[float, float, int, int]:
    """Best wall and CPU seconds of `runs` fresh processes, the largest peak RSS (KiB), and
    the exit code."""
    best, best_cpu, peak, code = float("inf"), float("inf"), 0, 0
    env = _bytecode_env()
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", WRAPPER, *command],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
        seconds, cpu, peak_kib, code_text = done.stdout.split()
        best, best_cpu = min(best, float(seconds)), min(best_cpu, float(cpu))
        peak, code = max(peak, int(peak_kib)), int(code_text)
    return best, best_cpu, peak, code


def time_migrate(
    root: Path, jobs: int | None, extra: list[str], runs: int = 1
) -> tuple[float, float, int, int]:
    """`jobs` None: the default (no --jobs flag: the engine decides)."""
    return _timed(_migrate_command(root, jobs, extra), runs)


def _migrate_command(root: Path, jobs: int | None, extra: list[str]) -> list[str]:
    """The dry run the benchmark times or counts (`jobs` None: no --jobs flag)."""
    migrate = shutil.which("migrate", path=os.path.dirname(sys.executable))
    # --no-cache: every run does the whole work (the cache would skip unchanged files).
    command = [migrate or "migrate", str(root), "--dry-run", "--no-cache", *extra]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    return command


def time_gpu2ascend(
    tool: Path, root: Path, version: str, runs: int
) -> tuple[float, float, int, int]:
    script = tool / "pytorch_gpu2npu.sh" if tool.is_dir() else tool
    with tempfile.TemporaryDirectory() as out:
        command = ["bash", str(script), "-i", str(root), "-o", out, "-v", version]
        return _timed(command, runs)


STARTUP_CASES = {
    "version": ("--version",),
    "no_token_run": (".", "--dry-run"),
    "one_file_run": ("b.py", "--dry-run"),
}
# Python's own start-up, and LibCST's import, which a run over a file that needs it pays.
YARDSTICKS = {"python": ("-c", "pass"), "libcst": ("-c", "import libcst")}


_INSTRUCTIONS = re.compile(r"I\s+refs:\s+([\d,]+)")


def count_instructions(command: list[str], stdin: str | None = None) -> int:
    """The instructions `command` runs, as valgrind's cachegrind counts them (with Python's
    hash seed fixed: set and dict order moves the count otherwise)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind (its cachegrind tool) on PATH")
    env = {**_bytecode_env(), "PYTHONHASHSEED": "0"}
    counted = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    done = subprocess.run(
        [*counted, *command], input=stdin, capture_output=True, text=True, env=env, check=False
    )
    found = _INSTRUCTIONS.search(done.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no instruction count: {done.stderr[-400:]}")
    return int(found.group(1).replace(",", ""))


def instructions(files: list[Path], root: Path) -> dict[str, object]:
    """`--instructions`: ast.parse of every file once, migrate at one process once."""
    listing = "\n".join(str(file) for file in files)
    parse = count_instructions([sys.executable, "-c", AST_TIMER, "1", "1"], listing)
    run = count_instructions(_migrate_command(root, 1, []))
    return {
        "ast_parse_instructions": parse,
        "migrate_jobs1_instructions": run,
        "instruction_ratio_jobs1": round(run / parse, 2),
    }


def _cpu(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _git_folder(folder: Path, name: str, text: str) -> Path:
    folder.mkdir()
    (folder / name).write_text(text)
    for command in (["init", "-q"], ["add", name]):
        subprocess.run(["git", "-C", str(folder), *command], check=True)
    subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=bench", "-c", "user.email=bench@invalid",
         "commit", "-q", "-m", "bench"],
        check=True,
    )  # fmt: skip
    return folder


def time_startup(runs: int) -> dict[str, float]:
    """CPU seconds of each start-up case, the best of `runs`."""
    exe = shutil.which("migrate", path=os.path.dirname(sys.executable))
    command = [exe] if exe is not None else [sys.executable, "-m", "migrator"]
    env = _bytecode_env()
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folders = {
            "version": Path(tmp),
            "no_token_run": _git_folder(Path(tmp) / "none", "x.py", "x = 1\n"),
            "one_file_run": _git_folder(
                Path(tmp) / "one", "b.py", "import torch\nx = torch.zeros(2).cuda()\n"
            ),
        }
        for label, args in STARTUP_CASES.items():
            _cpu([*command, *args], folders[label], env)  # warm-up: bytecode caches
            best = min(_cpu([*command, *args], folders[label], env) for _ in range(runs))
            figures[f"startup_{label}_cpu_s"] = round(best, 3)
        for label, args in YARDSTICKS.items():
            _cpu([sys.executable, *args], Path(tmp), env)
            best = min(_cpu([sys.executable, *args], Path(tmp), env) for _ in range(runs))
            figures[f"yardstick_{label}_cpu_s"] = round(best, 3)
    return figures


def subset(files: list[Path], root: Path, fraction: float, into: Path) -> Path:
    chosen = files[: max(1, int(len(files) * fraction))]
    target = into / f"part-{int(fraction * 100)}"
    for file in chosen:
        destination = target / file.relative_to(root)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, destination)
    return target


def stale_indexes() -> list[Path]:
    """The tool's trigger indexes that are stale (`write_index.stale`): with one, a run
    imports every rule to read their triggers (0.27 CPU s more a run), which the
    benchmark would time as the tool's; and the LibCST shapes file, likewise (0.025 s)."""
    from migrator.engine import write_index

    return list(write_index.stale())


def _warn_stale() -> None:
    from migrator.analysis.cst_walk import SHAPES_FILE

    for path in stale_indexes():
        cost = (
            "learns LibCST's node types first"
            if path == SHAPES_FILE
            else "imports all its rules first"
        )
        print(
            f"warning: {path} is stale: every run {cost} (rewrite it: "
            "python -m migrator.engine.write_index)",
            file=sys.stderr,
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="default: the installed torch's source")
    parser.add_argument("--short", action="store_true", help="jobs 1 only, no scaling (CI)")
    parser.add_argument("--scaling", action="store_true", help="also 25%% and 50%% subsets")
    parser.add_argument("--full-parse", action="store_true", help="time the slow reference path")
    parser.add_argument("--runs", type=int, default=3, help="best of this many runs")
    parser.add_argument("--versus-gpu2ascend", type=Path, metavar="TOOL", help="Huawei's tool")
    parser.add_argument("--gpu2ascend-version", default="2.1.0", help="its -v (torch version)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--startup", action="store_true", help="start-up CPU seconds only")
    parser.add_argument(
        "--instructions", action="store_true", help="instruction counts only (valgrind)"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    _warn_stale()
    if args.startup:
        figures: dict[str, object] = {
            "machine": (
                f"{platform.machine()}, {len(os.sched_getaffinity(0))} usable cores, "
                f"load {os.getloadavg()[0]:.1f}, Python {platform.python_version()}"
            ),
            "runs": args.runs,
            **time_startup(args.runs),
        }
        for key, value in figures.items():
            print(f"{key:28} {value}")
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2) + "\n")
        return 0
    if args.corpus is None:
        # The default corpus: the source of the installed torch release, found without
        # importing it (an imported torch would also slow this process's collector).
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.origin is None:
            parser.error("torch is not installed; name a tree with --corpus")
        args.corpus = Path(spec.origin).parent
    root = args.corpus.resolve()
    # A mistyped path gave a page of zeros and a ratio of 75,000 (migrate's exit 2 over
    # nothing parsed); it is one line now.
    if not root.is_dir():
        parser.error(f"{args.corpus}: not a folder (--corpus names a tree of Python files)")
    files = python_files(root)
    if not files:
        parser.error(f"{args.corpus}: holds no Python file to time")
    if args.instructions:
        counted: dict[str, object] = {"corpus": str(root), "files": len(files)}
        counted.update(instructions(files, root))
        for key, value in counted.items():
            print(f"{key:28} {value}")
        if args.json:
            args.json.write_text(json.dumps(counted, indent=2) + "\n")
        return 0
    extra = ["--full-parse"] if args.full_parse else []
    # `ast.parse` and `migrate --jobs 1` in turns, so that each pair ran in the same minute.
    pairs = [(time_ast(files, 2), time_migrate(root, 1, extra)) for _ in range(args.runs)]
    ast_seconds = min(parsed[0] for parsed, _ in pairs)
    ast_cpu = min(parsed[1] for parsed, _ in pairs)
    lines = pairs[0][0][2]
    _, ast_cpu_uncollected, _ = time_ast(files, args.runs, collect=False)
    figures = {
        "corpus": str(root),
        "files": len(files),
        "lines": lines,
        "ast_parse_s": round(ast_seconds, 3),
        "ast_parse_cpu_s": round(ast_cpu, 3),
        "ast_parse_no_gc_cpu_s": round(ast_cpu_uncollected, 3),
        "machine": (
            f"{platform.machine()}, {len(os.sched_getaffinity(0))} usable cores, "
            f"load {os.getloadavg()[0]:.1f}, Python {platform.python_version()}"
        ),
        "runs": args.runs,
    }
    settings: list[tuple[str, int | None]] = [("jobs1", 1)]
    if not args.short:
        settings.append(("default", None))
    for label, jobs in settings:
        if jobs == 1:
            seconds = min(run[0] for _, run in pairs)
            cpu = min(run[1] for _, run in pairs)
            peak = max(run[2] for _, run in pairs)
            codes = [run[3] for _, run in pairs]
            # A run that failed (or was killed: a negative code) is the one reported.
            code = next((found for found in codes if found not in (0, 1)), codes[-1])
        else:
            seconds, cpu, peak, code = time_migrate(root, jobs, extra, args.runs)
        if code not in (0, 1):
            print(f"migrate exited {code}", file=sys.stderr)
        figures[f"migrate_{label}_s"] = round(seconds, 3)
        figures[f"ratio_{label}"] = round(seconds / ast_seconds, 2) if ast_seconds else None
        figures[f"migrate_{label}_cpu_s"] = round(cpu, 3)
        figures[f"cpu_ratio_{label}"] = round(cpu / ast_cpu, 2) if ast_cpu else None
        figures[f"cpu_ratio_{label}_to_no_gc"] = (
            round(cpu / ast_cpu_uncollected, 2) if ast_cpu_uncollected else None
        )
        figures[f"files_per_s_{label}"] = round(len(files) / seconds, 1)
        figures[f"lines_per_s_{label}"] = round(lines / seconds)
        figures[f"peak_rss_mib_{label}"] = round(peak / 1024, 1)
    # Each pair's own ratio: where the machine's speed drifts over minutes (it moved by
    # 10 to 15% on some machines), the best of each side may come from different minutes.
    paired = [run[1] / parsed[1] for parsed, run in pairs if parsed[1]]
    figures["cpu_ratio_jobs1_pairs"] = [round(ratio, 2) for ratio in paired]
    figures["cpu_ratio_jobs1_paired"] = round(statistics.median(paired), 2) if paired else None
    if args.versus_gpu2ascend is not None:
        seconds, _, peak, code = time_gpu2ascend(
            args.versus_gpu2ascend, root, args.gpu2ascend_version, args.runs
        )
        if code != 0:
            print(f"GPU2Ascend exited {code}", file=sys.stderr)
        figures["gpu2ascend_s"] = round(seconds, 3)
        figures["gpu2ascend_peak_rss_mib"] = round(peak / 1024, 1)
        fastest = figures.get("migrate_default_s", figures["migrate_jobs1_s"])
        assert isinstance(fastest, float)
        figures["gpu2ascend_over_migrate"] = round(seconds / fastest, 2)
    if args.scaling and not args.short:
        with tempfile.TemporaryDirectory() as tmp:
            for fraction in (0.25, 0.5):
                part = subset(files, root, fraction, Path(tmp))
                _, _, peak, _ = time_migrate(part, 1, extra)
                figures[f"peak_rss_mib_{int(fraction * 100)}pct_files"] = round(peak / 1024, 1)
    figures["timing"] = (
        "best of runs; wall: perf_counter; cpu: ast.parse process_time in a fresh process "
        "that holds only the files' bytes (best of two parses), migrate user+system of its "
        "child from getrusage; ratios are to ast.parse of the same files, bytes read; "
        "ast.parse and migrate --jobs 1 run in turns, and each pair's ratio is given too"
    )
    for key, value in figures.items():
        print(f"{key:28} {value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
