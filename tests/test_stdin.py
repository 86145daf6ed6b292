"""`migrate - --stdin-filename NAME`: code in on stdin, migrated code out on stdout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner, Result

from migrator.cli import main
from tests.helpers import AUTOCAST, MIGRATED


def piped(data: bytes, *args: str) -> Result:
    return CliRunner().invoke(main, ["-", *args], input=data, catch_exceptions=False)


def test_migrated_code_on_stdout_report_on_stderr() -> None:
    result = piped(AUTOCAST.encode(), "--stdin-filename", "pkg/train.py")
    assert result.exit_code == 0
    assert result.stdout_bytes == MIGRATED.encode()
    assert "pkg/train.py:5:10: NPU001" in result.stderr
    assert "1 file scanned, 1 file changed" in result.stderr


def test_unchanged_code_is_echoed() -> None:
    source = b"x = 1\r\n"
    result = piped(source, "--stdin-filename", "a.py")
    assert result.exit_code == 0
    assert result.stdout_bytes == source


def test_parse_error_exits_two_and_echoes_the_input_unchanged() -> None:
    source = b'import torch\nwith torch.autocast("cuda")\n    pass\n'
    result = piped(source, "--stdin-filename", "broken.py")
    assert result.exit_code == 2
    assert result.stdout_bytes == source
    assert result.stderr.startswith("error: broken.py: cannot parse")


def test_check_and_dry_run_modes() -> None:
    check = piped(AUTOCAST.encode(), "--stdin-filename", "a.py", "--check")
    assert check.exit_code == 1
    assert check.stdout_bytes == b""
    dry = piped(AUTOCAST.encode(), "--stdin-filename", "a.py", "--dry-run")
    assert dry.exit_code == 1
    assert '+    with torch.autocast("npu"):' in dry.stdout
    clean = piped(MIGRATED.encode(), "--stdin-filename", "a.py", "--check")
    assert clean.exit_code == 0


def test_encoding_bom_and_line_endings_survive() -> None:
    source = b"\xef\xbb\xbf" + AUTOCAST.replace("\n", "\r\n").encode()
    result = piped(source, "--stdin-filename", "a.py")
    assert result.stdout_bytes == b"\xef\xbb\xbf" + MIGRATED.replace("\n", "\r\n").encode()


@pytest.mark.usefixtures("fixture_rules")
def test_the_name_picks_the_file_type() -> None:
    script = b"export CUDA_VISIBLE_DEVICES=0\n"
    shell = piped(script, "--stdin-filename", "scripts/run.sh")
    assert shell.stdout_bytes == b"export ASCEND_RT_VISIBLE_DEVICES=0\n"
    assert "scripts/run.sh:1:8: TST100" in shell.stderr
    unknown = piped(script, "--stdin-filename", "notes.md")
    assert unknown.exit_code == 0, "a kind no rule handles comes back unchanged"
    assert unknown.stdout_bytes == script
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell('import torch\ntorch.autocast("cuda")')]
    text = nbformat.writes(book) + "\n"
    notebook = piped(text.encode(), "--stdin-filename", "nb.ipynb")
    assert notebook.stdout_bytes == text.replace('\\"cuda\\"', '\\"npu\\"').encode()
    assert "nb.ipynb:cell 1:2:1: NPU001" in notebook.stderr


def test_configuration_is_found_from_the_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.migrate]\nignore = ["NPU001"]\n')
    monkeypatch.chdir(tmp_path / "pkg")
    result = piped(AUTOCAST.encode(), "--stdin-filename", "train.py", "--verbose")
    assert result.stdout_bytes == AUTOCAST.encode()
    assert f"config: {tmp_path / 'pyproject.toml'}" in result.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.migrate]\nbogus = 1\n")
    bad = piped(AUTOCAST.encode(), "--stdin-filename", "train.py")
    assert bad.exit_code == 2
    assert bad.stdout_bytes == AUTOCAST.encode(), "the text is never lost"


def test_stdin_filename_without_dash_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [str(tmp_path), "--stdin-filename", "a.py"])
    assert result.exit_code == 2
    assert "--stdin-filename needs PATH '-'" in result.stderr


def test_real_pipe_in_a_subprocess(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "migrator", "-", "--stdin-filename", "t.py"],
        input=AUTOCAST.encode(),
        capture_output=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == MIGRATED.encode()
