"""How profile steps run: each sees the results before it; created files get sane modes."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from migrator.contract.profile import Profile, StepInput
from migrator.contract.rule import RuleOptions
from migrator.core.model import FileResult, Status
from migrator.core.target import NPU
from migrator.engine.session import migrate, plan
from migrator.engine.settings import Settings
from migrator.formats import sources


class Recording:
    def __init__(self, name: str, creates: str) -> None:
        self.name = name
        self.creates = creates
        self.seen: list[FileResult] = []

    def __call__(self, given: StepInput) -> list[FileResult]:
        self.seen = list(given.results)
        return [FileResult(self.creates, Status.CREATED, new_data=b"data\n")]


def test_each_step_sees_the_rules_and_the_steps_before_it(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('import torch\nwith torch.autocast("cuda"):\n    pass\n')
    first, second = Recording("first", "one.txt"), Recording("second", "two.txt")
    profile = Profile("test", "two steps", steps=(first, second))
    settings = Settings(NPU, ("NPU001",), RuleOptions())
    results = list(migrate(plan(tmp_path, settings, profile, jobs=1)))
    assert [r.path for r in results] == ["a.py", "one.txt", "two.txt"]
    assert [r.path for r in first.seen] == ["a.py"]
    assert [(r.path, r.status) for r in second.seen] == [
        ("a.py", Status.CHANGED),
        ("one.txt", Status.CREATED),
    ]
    assert all(r.new_data is None and r.old_data is None for r in second.seen)


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_new_files_get_the_umask_mode_and_scripts_are_executable(
    tmp_path: Path, umask_022: None
) -> None:
    sources.write_atomic(tmp_path / "new" / "config.json", b"{}\n")
    sources.write_atomic(tmp_path / "run.sh", b"#!/bin/sh\necho hi\n")
    assert stat.S_IMODE((tmp_path / "new" / "config.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "run.sh").stat().st_mode) == 0o755
