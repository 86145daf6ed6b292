"""`benchmarks/bench.py` prints the figures it promises, and times a given GPU2Ascend."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks import bench
from migrator.engine import write_index

ROOT = Path(__file__).resolve().parents[1]


def test_the_bench_reports_both_runs_and_the_tool_it_is_given(tmp_path: Path) -> None:
    tool = tmp_path / "ms_fmk_transplt"
    tool.mkdir()
    # A stand-in with the real script's interface (-i input -o output -v version).
    called = tmp_path / "called"
    (tool / "pytorch_gpu2npu.sh").write_text(f'echo "$@" > {called}\ncp -r "$2" "$4/out"\n')
    figures_file = tmp_path / "figures.json"
    corpus = ROOT / "examples" / "cuda_trainer"
    args = ["--corpus", str(corpus), "--runs", "1", "--versus-gpu2ascend", str(tool)]
    code = bench.main([*args, "--json", str(figures_file)])
    assert code == 0
    figures = json.loads(figures_file.read_text())
    for key in ("ast_parse_s", "migrate_jobs1_s", "migrate_default_s", "ratio_default"):
        assert key in figures
    # One pair of ast.parse and --jobs 1 a run: its ratio, and their median.
    assert len(figures["cpu_ratio_jobs1_pairs"]) == 1
    assert figures["cpu_ratio_jobs1_paired"] == figures["cpu_ratio_jobs1_pairs"][0] > 0
    assert figures["files"] == 3 and figures["lines"] > 0
    assert figures["lines_per_s_default"] > 0 and figures["peak_rss_mib_jobs1"] > 10
    assert figures["gpu2ascend_s"] > 0 and "gpu2ascend_over_migrate" in figures
    assert called.read_text().split()[::2] == ["-i", "-o", "-v"]
    assert called.read_text().split()[1] == str(corpus) and called.read_text().endswith("2.1.0\n")


def test_the_startup_figures_are_the_cpu_seconds_of_the_three_cases_and_two_yardsticks(
    tmp_path: Path,
) -> None:
    figures_file = tmp_path / "figures.json"
    assert bench.main(["--startup", "--runs", "1", "--json", str(figures_file)]) == 0
    figures = json.loads(figures_file.read_text())
    for case in ("version", "no_token_run", "one_file_run"):
        assert figures[f"startup_{case}_cpu_s"] > 0
    # The yardsticks: Python's start-up, then that and LibCST's import.
    assert 0 < figures["yardstick_python_cpu_s"] < figures["yardstick_libcst_cpu_s"]


def test_a_stale_trigger_index_is_named_before_anything_is_timed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.stale_indexes() == [], "the committed indexes are current"
    old, current = tmp_path / "old" / "triggers.json", tmp_path / "current" / "triggers.json"
    for path in (old, current):
        path.parent.mkdir()
        path.write_text("{}\n")
    missing = tmp_path / "missing" / "triggers.json"
    given = {old: '{"rules": []}\n', current: "{}\n", missing: "{}\n"}
    monkeypatch.setattr(write_index, "expected", lambda: given)
    assert bench.stale_indexes() == [old, missing]
    monkeypatch.setattr(bench, "time_startup", lambda runs: {})
    assert bench.main(["--startup", "--runs", "1"]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "stale" in line]
    assert len(warnings) == 2 and str(old) in warnings[0] and "write_index" in warnings[0]


def test_the_instruction_counts_are_read_off_cachegrind_for_both_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in valgrind: it records its arguments and prints cachegrind's summary line,
    # a larger count for migrate than for the parse.
    calls = tmp_path / "calls"
    fake = tmp_path / "bin" / "valgrind"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        f'echo "$PYTHONHASHSEED $*" >> {calls}\n'
        'case "$*" in *--jobs*) n="2,500,000";; *) n="1,000,000";; esac\n'
        'echo "==1== I   refs:      $n" >&2\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    figures_file = tmp_path / "figures.json"
    corpus = ROOT / "examples" / "cuda_trainer"
    assert bench.main(["--corpus", str(corpus), "--instructions", "--json", str(figures_file)]) == 0
    figures = json.loads(figures_file.read_text())
    assert figures["ast_parse_instructions"] == 1_000_000
    assert figures["migrate_jobs1_instructions"] == 2_500_000
    assert figures["instruction_ratio_jobs1"] == 2.5
    # Each call's arguments (the parse's script spans lines), the hash seed fixed.
    called = calls.read_text()
    assert called.count("0 --tool=cachegrind --cache-sim=no") == 2
    assert called.rstrip().endswith(f"{corpus} --dry-run --no-cache --jobs 1")


def test_instructions_without_valgrind_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SystemExit, match="needs valgrind"):
        bench.count_instructions(["true"])


@pytest.mark.parametrize("make", ["missing", "empty", "file"])
def test_a_corpus_that_is_no_tree_of_python_files_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: str
) -> None:
    corpus = tmp_path / "corpus"
    if make == "empty":
        corpus.mkdir()
        (corpus / "README.md").write_text("no code\n")
    elif make == "file":
        corpus.write_text("x = 1\n")
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--corpus", str(corpus), "--short", "--runs", "1"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert str(corpus) in error
    assert ("no Python file" if make == "empty" else "not a folder") in error
