"""Habits users of ruff and black bring: typo hints, warnings that are not hidden behind -v."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator import cli
from tests.helpers import AUTOCAST, installed_migrate, invoke, run_installed


def one_file(folder: Path, text: str, name: str = "a.py") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder


MISTYPED = 'import torch\nwith torch.autocast("cuda"):  # migrate: ignore[NPU0l1]\n    pass\n'


def test_a_suppression_naming_an_unknown_code_warns_without_verbose(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", MISTYPED)
    result = invoke(str(root), "--check")
    assert (
        "a.py:2: warning: migrate: ignore names unknown code 'NPU0L1' (did you mean 'NPU011'?);"
        " it suppresses nothing"
    ) in result.stderr
    known = one_file(tmp_path / "q", MISTYPED.replace("NPU0l1", "NPU050"))
    assert "unknown code" not in invoke(str(known), "--check").stderr, "a known code is quiet"


def test_a_mistyped_select_code_suggests_the_closest(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", AUTOCAST)
    result = invoke(str(root), "--check", "--select", "NUP001")
    assert result.exit_code == cli.EXIT_ERROR
    assert "unknown rule code or prefix 'NUP001' (did you mean 'NPU001'?)" in result.stderr
    ignored = invoke(str(root), "--check", "--ignore", "NPU0O1")
    assert "(did you mean 'NPU001'?)" in ignored.stderr, "O read as 0"


@pytest.mark.skipif(installed_migrate() is None, reason="the console script is not installed")
def test_the_installed_command_warns_about_an_unknown_suppression(tmp_path: Path) -> None:
    root = one_file(tmp_path / "p", MISTYPED)
    done = run_installed(str(root), "--check")
    assert done.returncode == cli.EXIT_PENDING
    assert "names unknown code 'NPU0L1'" in done.stderr


def test_notebook_lines_the_rules_cannot_read_that_name_cuda_warn_by_default(
    tmp_path: Path,
) -> None:
    import nbformat

    book = nbformat.v4.new_notebook()
    book.cells = [
        nbformat.v4.new_code_cell("%%time\nx = torch.randn(2).cuda()"),
        nbformat.v4.new_code_cell("import torch\n!nvidia-smi\ny = 1"),
        nbformat.v4.new_code_cell("%%time\nx = 1"),
        nbformat.v4.new_code_cell("!ls"),
    ]
    (tmp_path / "p").mkdir()
    nbformat.write(book, str(tmp_path / "p" / "nb.ipynb"))
    result = invoke(str(tmp_path / "p"), "--check")
    warned = [line for line in result.stderr.splitlines() if "warning: cell" in line]
    assert [line.split("nb.ipynb: ", 1)[1] for line in warned] == [
        "warning: cell 1:2: a %%time cell magic is left alone but names CUDA ('cuda'): "
        "migrate it by hand",
        "warning: cell 2:2: an IPython line is left alone but names CUDA ('nvidia-smi'): "
        "migrate it by hand",
    ]
    assert "warning: cell" not in invoke(str(tmp_path / "p"), "--check", "-q").stderr
    verbose = invoke(str(tmp_path / "p"), "--check", "-v").stderr
    assert verbose.count("warning: cell 1:2") == 1, "shown once with --verbose too"
