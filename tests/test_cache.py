"""The incremental cache: files found clean are skipped until they or the run change."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from migrator.engine import cache, files
from migrator.engine.settings import Settings
from tests.helpers import AUTOCAST, invoke

CLEAN = "import torch\n\n\ndef step(m, x):\n    with torch.autocast('npu'):\n        return m(x)\n"


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths the Python engine really ran on (in-process runs, one job)."""
    seen: list[str] = []
    real = files.migrate_python

    def counting(text: str, path: str, *args: object, **kwargs: object) -> object:
        seen.append(path)
        return real(text, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(files, "migrate_python", counting)
    yield seen


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "p"
    root.mkdir()
    (root / "clean.py").write_text(CLEAN)
    (root / "todo.py").write_text(AUTOCAST)
    return root


def from_cache(result_stderr: str) -> int:
    line = next(x for x in result_stderr.splitlines() if x.endswith("clean run, skipped"))
    return int(line.split()[1])


def test_second_run_skips_clean_files(tmp_path: Path, parsed: list[str]) -> None:
    root = tree(tmp_path)
    first = invoke(str(root), "--check", "--verbose", "-j", "1", "--ignore", "NPU094")
    assert from_cache(first.stderr) == 0
    assert sorted(parsed) == ["clean.py", "todo.py"]
    parsed.clear()
    report = tmp_path / "r.json"
    second = invoke(
        str(root), "--check", "--verbose", "-j", "1", "--report", str(report), "--ignore", "NPU094"
    )
    assert second.exit_code == 1, "todo.py still has work: it is never cached"
    assert from_cache(second.stderr) == 1
    assert parsed == ["todo.py"], "clean.py was not read by the rules again"
    assert json.loads(report.read_text())["summary"]["files_from_cache"] == 1
    assert "2 files scanned" in second.stderr


def test_an_edited_file_is_checked_again(tmp_path: Path, parsed: list[str]) -> None:
    root = tree(tmp_path)
    invoke(str(root), "--check", "-j", "1")
    (root / "clean.py").write_text(CLEAN + AUTOCAST.replace("import torch\n", ""))
    parsed.clear()
    result = invoke(str(root), "--check", "--verbose", "-j", "1")
    assert from_cache(result.stderr) == 0
    assert "clean.py" in parsed
    assert "clean.py:10:10: NPU001" in result.stderr


@pytest.mark.usefixtures("fixture_rules")
def test_a_different_rule_selection_does_not_reuse_records(tmp_path: Path) -> None:
    root = tree(tmp_path)
    invoke(str(root), "--check", "--select", "NPU001")
    assert from_cache(invoke(str(root), "--check", "-v", "--select", "NPU001").stderr) == 1
    assert from_cache(invoke(str(root), "--check", "-v", "--select", "NPU,TST05").stderr) == 0
    assert from_cache(invoke(str(root), "--check", "-v", "--select", "NPU,TST05").stderr) == 1
    assert from_cache(invoke(str(root), "--check", "-v", "--annotate").stderr) == 0


def test_run_key_depends_on_options_and_rule_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    from migrator.contract.rule import RuleOptions
    from migrator.core.target import NPU

    base = Settings(NPU, ("NPU001",), RuleOptions())
    assert cache.run_key(base) == cache.run_key(Settings(NPU, ("NPU001",), RuleOptions()))
    other = Settings(NPU, ("NPU001",), RuleOptions(transfer_to_npu=False))
    assert cache.run_key(other) != cache.run_key(base)
    before = cache.run_key(base)
    monkeypatch.setattr(cache, "__version__", "0.0.0-other")
    assert cache.run_key(base) != before


def test_run_key_reads_the_engine_and_the_selected_rules() -> None:
    from migrator.contract.rule import RuleOptions
    from migrator.core.target import NPU
    from migrator.engine import index, registry

    settings = Settings(NPU, ("NPU001", "DIT001"), RuleOptions())
    files = set(cache._source_files(settings))
    assert any(path.endswith("migrator/engine/files.py") for path in files)
    assert any(path.endswith("migrator/engine/python.py") for path in files)
    # The rules by the digest of their packages' modules, read once for the trigger index.
    held = cache._rule_packages(settings)
    if registry.catalog().digests:
        folders = {name: registry.package_folder(name) for name in ("rules", "target_dit4dit")}
        assert held == {name: index.digest(folder) for name, folder in folders.items()}
    else:  # a registry loaded in full (an earlier test): the rules' own sources
        assert any(path.endswith("rules/autocast_device.py") for path in files)


_KEY = (
    "from migrator.contract import rule; from migrator.core import target;"
    "from migrator.engine import cache, settings;"
    "print(cache.run_key(settings.Settings(target.NPU, ('NPU001',), rule.RuleOptions())))"
)


def test_run_key_changes_with_any_source_of_the_tool(tmp_path: Path) -> None:
    """A copy of the tool: an edit to the engine, to the selected rule or to another module
    of its package (a helper it may import) gives a new key."""
    import shutil

    root = Path(__file__).resolve().parents[1]
    for package in ("migrator", "rules", "target_dit4dit"):
        shutil.copytree(
            root / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )

    def key() -> str:
        env = {**os.environ, "PYTHONPATH": str(tmp_path)}
        done = subprocess.run(
            [sys.executable, "-c", _KEY], capture_output=True, text=True, check=True,
            env=env, cwd=tmp_path,
        )  # fmt: skip
        return done.stdout

    keys = [key()]
    for rel in ("migrator/engine/files.py", "rules/autocast_device.py", "rules/cuda_method.py"):
        with (tmp_path / rel).open("a", encoding="utf-8") as handle:
            handle.write("# an edit\n")
        keys.append(key())
    assert key() == keys[-1], "the key is stable while nothing changes"
    assert len(set(keys)) == len(keys), keys


def test_run_key_is_stable_across_processes() -> None:
    """Sets in the target must not make the key depend on the hash seed."""
    keys = {
        subprocess.run(
            [sys.executable, "-c", _KEY],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=Path(__file__).resolve().parents[1],
        ).stdout
        for seed in ("1", "2")
    }
    assert len(keys) == 1


def test_a_corrupted_cache_is_rebuilt_not_trusted(tmp_path: Path, parsed: list[str]) -> None:
    root = tree(tmp_path)
    invoke(str(root), "--check")
    db = cache.folder() / cache.FILE_NAME
    db.write_bytes(b"this is not an SQLite database" * 100)
    parsed.clear()
    result = invoke(str(root), "--check", "--verbose", "-j", "1")
    assert result.exit_code == 1
    assert "was not a sound cache; rebuilt it" in result.stderr
    assert from_cache(result.stderr) == 0
    assert sorted(parsed) == ["clean.py", "todo.py"]
    assert from_cache(invoke(str(root), "--check", "-v").stderr) == 1, "rebuilt and used"


def test_a_database_of_another_layout_is_rebuilt(tmp_path: Path) -> None:
    root = tree(tmp_path)
    db = cache.folder() / cache.FILE_NAME
    db.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE clean (key TEXT)")
    result = invoke(str(root), "--check", "--verbose")
    assert "rebuilt it" in result.stderr
    assert from_cache(invoke(str(root), "--check", "-v").stderr) == 1


def test_no_cache_bypasses_it(tmp_path: Path, parsed: list[str]) -> None:
    root = tree(tmp_path)
    invoke(str(root), "--check")
    parsed.clear()
    result = invoke(str(root), "--check", "--verbose", "--no-cache", "-j", "1")
    assert "cache:" not in result.stderr
    assert sorted(parsed) == ["clean.py", "todo.py"]


def test_files_with_warnings_or_suppressions_are_never_cached(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "quiet.py").write_text(AUTOCAST.replace('"cuda"):', '"cuda"):  # migrate: ignore'))
    invoke(str(root), "--check")
    result = invoke(str(root), "--check", "--verbose")
    assert from_cache(result.stderr) == 0
    assert "NPU001 suppressed by a migrate: ignore comment" in result.stderr


def test_cache_folder_unusable_turns_the_cache_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(cache.ENV, str(blocker / "sub"))
    root = tree(tmp_path)
    result = invoke(str(root), "--check", "--verbose")
    assert result.exit_code == 1
    assert "cache: off" in result.stderr


def test_parallel_jobs_and_concurrent_runs_share_the_cache(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for index in range(40):
        (root / f"m{index:02d}.py").write_text(CLEAN if index % 4 else AUTOCAST)
    command = [sys.executable, "-m", "migrator", str(root), "--check", "--verbose", "-j", "2",
               "--ignore", "NPU094"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    runs = [subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env) for _ in range(3)]
    for run in runs:
        _, stderr = run.communicate(timeout=300)
        assert run.returncode == 1, stderr
        assert "40 files scanned, 10 files would change" in stderr
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert from_cache(again.stderr) == 30
    assert "40 files scanned, 10 files would change" in again.stderr


def test_a_cache_locked_by_another_process_is_waited_for_then_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tree(tmp_path)
    invoke(str(root), "--check")
    db = cache.folder() / cache.FILE_NAME
    monkeypatch.setattr(cache, "TIMEOUT_S", 0.2)
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        result = invoke(str(root), "--check", "--verbose")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 1
    assert "locked by another process for over 0.2 s" in result.stderr
    assert "rebuilt" not in result.stderr
    assert from_cache(invoke(str(root), "--check", "-v").stderr) == 1, "kept, records and all"


@pytest.mark.parametrize(
    "env",
    [
        {"XDG_CACHE_HOME": "/tmp/xdg-cache", "HOME": "/home/someone"},
        {"XDG_CACHE_HOME": "/tmp/xdg-cache/", "HOME": "/home/someone"},
        {"XDG_CACHE_HOME": "relative/cache", "HOME": "/home/someone"},
        {"XDG_CACHE_HOME": "", "HOME": "/home/someone/"},
        {"HOME": "/"},
    ],
    ids=["xdg", "xdg_trailing_slash", "xdg_relative_ignored", "xdg_empty", "home_root"],
)
def test_the_cache_folder_is_platformdirs_one(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from platformdirs import user_cache_dir

    monkeypatch.delenv(cache.ENV, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    expected = Path(user_cache_dir("npu-migrator", appauthor=False))
    assert cache.folder() == expected
    if sys.platform.startswith("linux"):
        assert cache._xdg_folder() == expected, "read without importing platformdirs"


def test_a_source_changed_within_the_racy_window_is_stamped_by_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two same-size edits within one step of a coarse file-system clock leave the same
    path, size and times: a source that recent adds its bytes to the stamp."""
    import time
    import types

    source = tmp_path / "engine.py"

    def stamps(age: float) -> tuple[bytes, bytes]:
        when = time.time() - age
        fixed = types.SimpleNamespace(
            st_size=6, st_mtime=when, st_ctime=when,
            st_mtime_ns=int(when * 1e9), st_ctime_ns=int(when * 1e9),
        )  # fmt: skip
        monkeypatch.setattr(cache.os, "stat", lambda path: fixed)
        source.write_text("x = 1\n")
        first = cache._stamp(str(source))
        source.write_text("x = 2\n")
        return first, cache._stamp(str(source))

    first, second = stamps(age=0.5)
    assert first != second, "a recent source is told apart by its bytes"
    first, second = stamps(age=cache._RACY_S + 5)
    assert first == second, "an older one by its path, size and times alone"
