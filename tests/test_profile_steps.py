"""How profile steps run: each sees the results before it; created files get sane modes."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from migrator import sources


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
