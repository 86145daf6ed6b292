"""`benchmarks/growth.py` writes each shape so that a run has work in it, and prints the
growth of the run's time from one size to twice it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import growth
from tests.helpers import invoke


@pytest.mark.parametrize("shape", sorted(growth.SHAPES))
def test_each_shape_gives_a_run_work_and_grows_with_its_size(shape: str, tmp_path: Path) -> None:
    make = growth.SHAPES[shape][1]
    small = growth.write(tmp_path / "small", make(4))
    assert growth.write(tmp_path / "large", make(8)) > small
    result = invoke(str(tmp_path / "small"), "--dry-run", "--no-cache", "--jobs", "1")
    # A dry run that would change files exits 1; none of them fails.
    assert result.exit_code == 1, result.output
    assert " 0 files failed" in result.output


def test_the_benchmark_prints_and_writes_the_growth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figures_file = tmp_path / "growth.json"
    args = ["--shape", "json_records", "--size", "40", "--runs", "1", "--json", str(figures_file)]
    assert growth.main(args) == 0
    (row,) = json.loads(figures_file.read_text())
    assert row["shape"] == "json_records" and row["size"] == 40
    assert row["bytes_double"] > row["bytes"] > 0
    assert row["exit"] == row["exit_double"] == 1
    assert row["growth"] == round(row["cpu_s_double"] / row["cpu_s"], 2)
    printed = capsys.readouterr().out
    assert printed.splitlines()[1].split()[0] == "json_records"
