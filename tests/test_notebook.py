"""Jupyter notebooks: code cells migrated one by one, every other byte kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest

from migrator.formats.notebook import mask, unmask
from tests.helpers import invoke

pytestmark = pytest.mark.usefixtures("fixture_rules")

MAGICS = (
    "%matplotlib inline\n"
    "import torch\n"
    "!nvidia-smi\n"
    "files = !ls data\n"
    "torch.autocast?\n"
    "if True:\n"
    '    %time y = torch.autocast("cuda")\n'
    'with torch.autocast("cuda"):\n'
    "    pass"
)


def notebook(*cells: Any) -> Any:
    book = nbformat.v4.new_notebook()
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "py"}
    book.cells = list(cells)
    return book


def write(folder: Path, book: Any, name: str = "nb.ipynb") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    nbformat.write(book, str(path))
    return path


def code(source: str, **extra: Any) -> Any:
    return nbformat.v4.new_code_cell(source, **extra)


def test_code_cells_are_migrated_and_everything_else_is_kept(tmp_path: Path) -> None:
    output = nbformat.v4.new_output("stream", text='torch.autocast("cuda") ran\n')
    book = notebook(
        nbformat.v4.new_markdown_cell('Uses `torch.autocast("cuda")`.'),
        code("import torch", execution_count=1, metadata={"tags": ["setup"]}),
        code('with torch.autocast("cuda"):\n    y = model(x)', execution_count=2, outputs=[output]),
    )
    path = write(tmp_path / "p", book)
    before = path.read_text()
    result = invoke(str(tmp_path / "p"), "--allow-no-vcs")
    assert result.exit_code == 0, result.stderr
    after = path.read_text()
    assert after == before.replace(
        '"with torch.autocast(\\"cuda\\"):\\n"', '"with torch.autocast(\\"npu\\"):\\n"'
    )
    assert after != before
    assert "nb.ipynb:cell 3:1:6: NPU001" in result.stderr


def test_names_imported_in_earlier_cells_are_resolved(tmp_path: Path) -> None:
    book = notebook(
        code("import torch as th\nfrom torch import autocast as ac"),
        nbformat.v4.new_markdown_cell("text"),
        code('with th.autocast("cuda"):\n    pass\nwith ac("cuda"):\n    pass'),
        code('def f(th):\n    with th.autocast("cuda"):\n        pass'),
    )
    path = write(tmp_path / "p", book)
    assert invoke(str(tmp_path / "p"), "--allow-no-vcs").exit_code == 0
    cells = nbformat.read(str(path), as_version=4).cells
    assert cells[2].source == 'with th.autocast("npu"):\n    pass\nwith ac("npu"):\n    pass'
    assert '"cuda"' in cells[3].source, "a parameter named th shadows the import"


def test_ipython_magics_and_shell_escapes_are_kept_exactly(tmp_path: Path) -> None:
    path = write(tmp_path / "p", notebook(code(MAGICS)))
    result = invoke(str(tmp_path / "p"), "--allow-no-vcs")
    assert result.exit_code == 0, result.stderr
    (cell,) = nbformat.read(str(path), as_version=4).cells
    assert cell.source == MAGICS.replace(
        'with torch.autocast("cuda")', 'with torch.autocast("npu")'
    )


def test_mask_and_unmask_round_trip() -> None:
    masked, hidden = mask(MAGICS)
    assert len(hidden) == 5
    assert "    __npu_migrator_ipython_line_4__\n" in masked
    assert unmask(masked, hidden) == MAGICS
    assert unmask(masked.replace("__npu_migrator_ipython_line_4__", "pass"), hidden) is None


def test_cell_magic_leaves_that_cell_alone(tmp_path: Path) -> None:
    timed = '%%time\nimport torch\nwith torch.autocast("cuda"):\n    pass'
    book = notebook(code(timed), code('import torch\nwith torch.autocast("cuda"):\n    pass'))
    path = write(tmp_path / "p", book)
    result = invoke(str(tmp_path / "p"), "--allow-no-vcs", "--verbose")
    cells = nbformat.read(str(path), as_version=4).cells
    assert cells[0].source == timed
    assert '"npu"' in cells[1].source
    assert "nb.ipynb: cell 1 left alone: a %% cell magic" in result.stderr


def test_a_cell_that_cannot_parse_is_left_alone_not_the_notebook(tmp_path: Path) -> None:
    broken = 'import torch\nwith torch.autocast("cuda")\n    pass'
    book = notebook(code(broken), code('import torch\nwith torch.autocast("cuda"):\n    pass'))
    path = write(tmp_path / "p", book)
    result = invoke(str(tmp_path / "p"), "--allow-no-vcs", "--verbose")
    assert result.exit_code == 0
    cells = nbformat.read(str(path), as_version=4).cells
    assert cells[0].source == broken
    assert '"npu"' in cells[1].source
    assert "nb.ipynb: cell 1 left alone: cannot parse" in result.stderr


def test_entry_point_set_up_is_not_injected(tmp_path: Path) -> None:
    source = (
        'import torch\nif __name__ == "__main__":\n    with torch.autocast("cuda"):\n        pass'
    )
    path = write(tmp_path / "p", notebook(code(source)))
    result = invoke(str(tmp_path / "p"), "--allow-no-vcs", "--entry", str(path))
    assert result.exit_code == 0
    (cell,) = nbformat.read(str(path), as_version=4).cells
    assert "torch_npu" not in cell.source
    assert '"npu"' in cell.source


def test_warnings_and_todo_comments_in_cells(tmp_path: Path) -> None:
    book = notebook(code("import flash_attn"), code("x = 1\nflash_attn.flash_attn_func(q)"))
    path = write(tmp_path / "p", book)
    result = invoke(str(tmp_path / "p"), "--allow-no-vcs", "--annotate")
    assert "nb.ipynb:cell 2:2:1: TST050 warning" in result.stderr
    cells = nbformat.read(str(path), as_version=4).cells
    assert cells[1].source == (
        "x = 1\n# NPU-TODO(TST050): use npu_fusion_attention\nflash_attn.flash_attn_func(q)"
    )
    assert invoke(str(tmp_path / "p"), "--annotate", "--check").exit_code == 0


def test_suppression_in_a_cell(tmp_path: Path) -> None:
    source = 'import torch\nwith torch.autocast("cuda"):  # migrate: ignore\n    pass'
    path = write(tmp_path / "p", notebook(code(source)))
    before = path.read_bytes()
    result = invoke(str(tmp_path / "p"), "--allow-no-vcs", "--verbose")
    assert path.read_bytes() == before
    assert "nb.ipynb:cell 1:2: NPU001 suppressed" in result.stderr


def test_json_nbformat_cannot_reproduce_is_edited_at_the_cell_source_spans(
    tmp_path: Path,
) -> None:
    book = notebook(
        code('import torch\nname = "café"\nwith torch.autocast("cuda"):\n    pass'),
        code("x = 1"),
    )
    path = tmp_path / "p" / "nb.ipynb"
    path.parent.mkdir()
    # Four-space indentation, keys unsorted, non-ASCII escaped: nothing Jupyter writes.
    raw = json.loads(nbformat.writes(book))
    raw = {"nbformat_minor": raw["nbformat_minor"], **raw}
    path.write_text(json.dumps(raw, indent=4))
    before = path.read_text()
    result = invoke(str(tmp_path / "p"), "--allow-no-vcs")
    assert result.exit_code == 0, result.stderr
    assert "nb.ipynb:cell 1:3:6: NPU001" in result.stderr
    assert path.read_text() == before.replace(
        '"with torch.autocast(\\"cuda\\"):\\n"', '"with torch.autocast(\\"npu\\"):\\n"'
    )
    assert path.read_text() != before


def test_a_cell_source_stored_as_one_string_is_edited_in_place(tmp_path: Path) -> None:
    raw = json.loads(nbformat.writes(notebook(code('import torch\ntorch.autocast("cuda")'))))
    raw["cells"][0]["source"] = "".join(raw["cells"][0]["source"])
    path = tmp_path / "p" / "nb.ipynb"
    path.parent.mkdir()
    path.write_text(json.dumps(raw, indent=2, separators=(",", ": ")))
    before = path.read_text()
    assert invoke(str(tmp_path / "p"), "--allow-no-vcs").exit_code == 0
    assert path.read_text() == before.replace('(\\"cuda\\")', '(\\"npu\\")')


def test_foreign_formatting_is_fine_when_nothing_changes(tmp_path: Path) -> None:
    path = tmp_path / "p" / "nb.ipynb"
    path.parent.mkdir()
    path.write_text(json.dumps(notebook(code("import torch\nx = torch.ones(2)")), indent=4))
    assert invoke(str(tmp_path / "p"), "--check").exit_code == 0


def test_not_a_notebook_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "p" / "nb.ipynb"
    path.parent.mkdir()
    path.write_text('{"cells": [ torch.autocast("cuda")')
    result = invoke(str(tmp_path / "p"), "--allow-no-vcs")
    assert result.exit_code == 2
    assert "nb.ipynb: not a Jupyter notebook" in result.stderr


def test_fast_and_full_paths_agree(tmp_path: Path) -> None:
    book = notebook(code(MAGICS), code("from torch import autocast as ac"), code('ac("cuda")'))
    fast = write(tmp_path / "fast", book)
    full = write(tmp_path / "full", book)
    assert invoke(str(tmp_path / "fast"), "--allow-no-vcs").exit_code == 0
    assert invoke(str(tmp_path / "full"), "--allow-no-vcs", "--full-parse").exit_code == 0
    assert fast.read_bytes() == full.read_bytes()
    assert b'ac(\\"npu\\")' in fast.read_bytes()


def test_chained_cells_carry_the_imports_their_names_give() -> None:
    """`chain` carries the imports on from cell to cell (not read again from every name the
    cells bound, a cost in the square of the cells): they are what the chained names give,
    a later cell's rebinding included, and the aliases found through them are the same."""
    import ast

    from migrator.analysis.bindings import EMPTY, ModuleBindings, chain, module_bindings
    from migrator.engine.python import alias_tokens
    from rules.autocast_device import AutocastDevice

    cells = [
        "import torch\nfrom torch import autocast as ac\nx = 1\n",
        "import numpy as np\ny = torch.zeros(1)\n",
        "ac = None\nimport torch.cuda as tc\n",  # rebinds an import's name with a value
        "np = 3\nfrom torch import autocast as ac2\n",
        "def f():\n    pass\nimport os\n",
    ]
    inherited = EMPTY
    for cell in cells:
        inherited = chain(inherited, module_bindings(ast.parse(cell)))
        fresh = ModuleBindings(inherited.names, inherited.star_imports)
        assert dict(inherited.imports) == dict(fresh.imports)
        assert alias_tokens(AutocastDevice, inherited) == alias_tokens(AutocastDevice, fresh)
    assert dict(inherited.imports)["ac"] == ("torch.autocast",)
    assert "x" not in dict(inherited.imports) and "f" not in dict(inherited.imports)
    assert r"\bac2\b" in alias_tokens(AutocastDevice, inherited)
