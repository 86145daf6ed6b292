"""The engine starts a process pool only when it pays; `--jobs N` forces N."""

from __future__ import annotations

import gc
import multiprocessing
import os
from pathlib import Path

import pytest

from migrator.contract.rule import RuleOptions
from migrator.core.model import Status
from migrator.core.target import NPU
from migrator.engine import files
from migrator.engine.files import BYTES_PER_WORKER, auto_jobs, busy_cores, usable_cores
from migrator.engine.settings import Settings
from tests.helpers import AUTOCAST, invoke

DIT4DIT_PYTHON = 571_041  # bytes of DiT4DiT's 55 Python files


def test_a_small_project_runs_in_this_process() -> None:
    assert auto_jobs(BYTES_PER_WORKER - 1, cores=16, busy=0.0) == 1


def test_dit4dit_on_two_idle_cores_uses_both() -> None:
    assert auto_jobs(DIT4DIT_PYTHON, cores=2, busy=0.1) == 2


@pytest.mark.parametrize("busy", [1.0, 2.0, 7.5])
def test_dit4dit_on_two_busy_cores_runs_in_this_process(busy: float) -> None:
    assert auto_jobs(DIT4DIT_PYTHON, cores=2, busy=busy) == 1


def test_workers_grow_with_the_work_up_to_the_free_cores() -> None:
    assert auto_jobs(3 * BYTES_PER_WORKER, cores=16, busy=0.0) == 4
    assert auto_jobs(100 * BYTES_PER_WORKER, cores=16, busy=10.0) == 6


def test_the_cores_are_this_process_s_and_the_load_is_read() -> None:
    assert 1 <= usable_cores() <= (os.cpu_count() or 1)
    assert 0.0 <= busy_cores(0.02) <= usable_cores() + 0.01


def test_busy_is_the_share_of_the_window_each_usable_core_was_not_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # cpu0 busy all the window, cpu1 idle, cpu2 half busy; cpu3 is not this process's.
    samples = iter(
        [
            {0: (1000, 400), 1: (1000, 900), 2: (1000, 500)},
            {0: (1010, 400), 1: (1010, 910), 2: (1010, 505)},
        ]
    )
    monkeypatch.setattr(files, "_cpu_ticks", lambda cpus: next(samples))
    monkeypatch.setattr(files.time, "sleep", lambda seconds: None)
    assert busy_cores() == pytest.approx(1.5)


def test_without_proc_stat_the_load_average_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(files, "_cpu_ticks", lambda cpus: None)
    monkeypatch.setattr(files.os, "getloadavg", lambda: (3.25, 1.0, 1.0))
    assert busy_cores() == 3.25


def test_proc_stat_is_read_for_the_usable_cores_only() -> None:
    ticks = files._cpu_ticks(frozenset({0}))
    if ticks is None:
        pytest.skip("no /proc/stat here")
    assert set(ticks) == {0}
    total, idle = ticks[0]
    assert 0 <= idle <= total


def test_a_run_too_small_for_a_pool_does_not_watch_the_cores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def watched(window: float = 0.0) -> float:
        raise AssertionError("busy_cores read for a run that needs no pool")

    monkeypatch.setattr(files, "busy_cores", watched)
    root = _tree(tmp_path / "small", 3)
    assert invoke(str(root), "--dry-run", "--no-cache").exit_code == 1


def _tree(root: Path, count: int) -> Path:
    root.mkdir()
    for index in range(count):
        (root / f"m{index:02d}.py").write_text(AUTOCAST)
    return root


def test_the_default_decides_and_jobs_forces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []
    real = multiprocessing.get_context

    def counting(method: str) -> object:
        context = real(method)

        class Counting:
            def Pool(self, processes: int, **kwargs: object) -> object:
                started.append(processes)
                return context.Pool(processes, **kwargs)

        return Counting()

    monkeypatch.setattr(multiprocessing, "get_context", counting)
    root = _tree(tmp_path / "small", 3)
    assert invoke(str(root), "--dry-run", "--no-cache").exit_code == 1
    assert started == [], "three small files must not start a pool"
    result = invoke(str(root), "--dry-run", "--no-cache", "--jobs", "2")
    assert result.exit_code == 1 and "3 files would change" in result.stderr
    assert started == [2]


def test_files_are_migrated_with_fewer_collections_and_the_thresholds_come_back(
    tmp_path: Path,
) -> None:
    root = _tree(tmp_path / "small", 2)
    settings = Settings(NPU, ("NPU001",), RuleOptions())
    before = gc.get_threshold()
    assert before != files.GC_THRESHOLDS and gc.get_freeze_count() == 0
    results = files.migrate_files(root, ["m00.py", "m01.py"], settings, jobs=1)
    first = next(results)
    # What was alive at the start is frozen while the files are migrated.
    assert gc.get_threshold() == files.GC_THRESHOLDS and gc.get_freeze_count() > 0
    rest = list(results)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    assert [result.path for result in (first, *rest)] == ["m00.py", "m01.py"]
    assert all(result.status is Status.CHANGED for result in (first, *rest))
    # A caller's own frozen objects stay frozen (out of the generations get_objects
    # lists). Their count is no test: the run may free a frozen object, as a cache that
    # earlier tests filled drops an entry.
    own: list[list[int]] = [[] for _ in range(3)]
    gc.freeze()
    try:
        list(files.migrate_files(root, ["m00.py"], settings, jobs=1))
        assert gc.get_freeze_count() > 0
        listed = {id(found) for found in gc.get_objects()}
        assert not any(id(mine) in listed for mine in own)
    finally:
        gc.unfreeze()
    listed = {id(found) for found in gc.get_objects()}
    assert all(id(mine) in listed for mine in own)


@pytest.mark.parametrize("collecting", [True, False])
def test_the_collector_waits_while_a_file_is_migrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, collecting: bool
) -> None:
    from migrator.engine import python

    seen: list[bool] = []
    real = python.migrate_python

    def watched(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(python, "migrate_python", watched)
    root = _tree(tmp_path / "small", 2)
    settings = Settings(NPU, ("NPU001",), RuleOptions())
    (gc.enable if collecting else gc.disable)()
    try:
        results = list(files.migrate_files(root, ["m00.py", "m01.py"], settings, jobs=1))
        # Off while each file is migrated; the caller's setting is back after each.
        assert seen == [False, False]
        assert gc.isenabled() is collecting
    finally:
        gc.enable()
    assert all(result.status is Status.CHANGED for result in results)


def test_a_watch_from_the_planning_is_read_without_waiting_and_less_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two cores busy all 0.2 s since the watch; this process used 0.2 CPU s of it (one
    # core): one core's worth is someone else's. No sleep: the window has passed.
    watch = files.CoreWatch(None, {0: (1000, 400), 1: (1000, 900)}, wall=10.0, cpu=5.0)
    monkeypatch.setattr(files, "_usable_cpus", lambda: None)
    monkeypatch.setattr(files, "_cpu_ticks", lambda cpus: {0: (1020, 400), 1: (1020, 900)})
    monkeypatch.setattr(files.time, "monotonic", lambda: 10.2)
    monkeypatch.setattr(files.time, "process_time", lambda: 5.2)
    slept: list[float] = []
    monkeypatch.setattr(files.time, "sleep", slept.append)
    assert busy_cores(since=watch) == pytest.approx(1.0)
    assert slept == []


def test_a_watch_taken_just_before_waits_out_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    watch = files.CoreWatch(None, {0: (1000, 400)}, wall=10.0, cpu=5.0)
    monkeypatch.setattr(files, "_usable_cpus", lambda: None)
    monkeypatch.setattr(files, "_cpu_ticks", lambda cpus: {0: (1005, 405)})
    monkeypatch.setattr(files.time, "monotonic", lambda: 10.01)
    monkeypatch.setattr(files.time, "process_time", lambda: 5.0)
    slept: list[float] = []
    monkeypatch.setattr(files.time, "sleep", slept.append)
    assert busy_cores(0.05, since=watch) == pytest.approx(0.0)
    assert slept == [pytest.approx(0.04)]


def test_a_planned_run_watches_the_cores_from_the_planning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[object] = []

    def watched(window: float = 0.0, since: object = None) -> float:
        seen.append(since)
        return 0.0

    monkeypatch.setattr(files, "busy_cores", watched)
    monkeypatch.setattr(files, "BYTES_PER_WORKER", 1)
    monkeypatch.setattr(files, "usable_cores", lambda: 2)
    root = _tree(tmp_path / "planned", 3)
    invoke(str(root), "--dry-run", "--no-cache")
    assert len(seen) == 1 and isinstance(seen[0], files.CoreWatch)


def test_a_file_no_text_rule_names_is_turned_away_as_each_rule_would() -> None:
    from migrator.engine import registry

    prepared = files._Prepared(Settings(NPU, registry.load().codes, RuleOptions()))
    assert prepared.text_entries
    names = [
        "a.h", "include/torch/x.cuh", "lib/libtorch.so", "README.md", "docs/index.rst",
        "run.sh", "scripts/train.slurm", "Dockerfile", "docker/Dockerfile.gpu",
        "requirements.txt", "requirements-dev.txt", "env/conda.yml", "environment.yaml",
        "configs/a.yaml", "setup.cfg", "pyproject.toml", "setup.py", "x.ipynb", "a.json",
        "launch", "Makefile", "CMakeLists.txt", "x/y/z.toml", "x.cfg", "ds_config.json",
    ]  # fmt: skip
    for name in names:
        each = any(entry.trigger.handles(name) for entry in prepared.text_entries)
        if not name.endswith((".py", ".ipynb")):
            assert prepared.handles(name) is each, name
    # Some of them a text rule names, some none does.
    assert {prepared.handles(name) for name in names if not name.endswith(".py")} == {True, False}


def test_rule_classes_are_the_entries_python_rules_each_loaded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from migrator.contract.rule import PythonRule
    from migrator.engine import registry
    from migrator.engine.index import RuleEntry

    entries = registry.catalog().entries
    prepared = files._Prepared(Settings(NPU, registry.load().codes, RuleOptions()))
    expected = [
        rule for rule in (entry.load() for entry in entries) if issubclass(rule, PythonRule)
    ]
    assert any(entry.text for entry in entries)  # text rules are among them, and left out
    loads: list[str] = []
    load = RuleEntry.load

    def counted(entry: RuleEntry) -> object:
        loads.append(entry.code)
        return load(entry)

    monkeypatch.setattr(RuleEntry, "load", counted)
    assert prepared._classes(entries) == expected
    assert prepared._classes(entries[::-1]) == expected[::-1]
    assert sorted(loads) == sorted(entry.code for entry in entries)
