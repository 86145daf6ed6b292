"""The documented Python API: one source text, and a tree into a typed result."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator import api
from migrator.core.model import Kind, Status
from tests.helpers import AUTOCAST, MIGRATED


def test_migrate_source_returns_the_new_text_and_the_findings() -> None:
    result = api.migrate_source(AUTOCAST + "import flash_attn\n")
    assert result.text == MIGRATED + "import flash_attn\n"
    assert result.changed and result.error is None
    assert [(item.code, item.kind) for item in result.findings] == [
        ("NPU001", Kind.EDIT),
        ("NPU050", Kind.WARNING),
    ]
    assert [item.code for item in result.edits] == ["NPU001"]
    assert [item.code for item in result.warnings] == ["NPU050"]
    assert result.findings[0].path == "module.py" and result.findings[0].line == 5


def test_migrate_source_honours_the_selection_and_the_kind_of_file() -> None:
    assert not api.migrate_source(AUTOCAST, ignore=["NPU001"]).changed
    shell = api.migrate_source("export CUDA_VISIBLE_DEVICES=0,1\n", "run.sh")
    assert "ASCEND_RT_VISIBLE_DEVICES" in shell.text


def test_bad_input_is_a_result_and_a_bad_request_an_exception() -> None:
    broken = api.migrate_source("x.cuda(:\n")
    assert broken.error is not None and broken.text == "x.cuda(:\n" and not broken.changed
    with pytest.raises(api.MigrationError, match="did you mean 'NPU001'"):
        api.migrate_source(AUTOCAST, select=["NUP001"])


def test_migrate_tree_reads_by_default_and_writes_when_asked(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "train.py").write_text(AUTOCAST)
    (tmp_path / "pkg" / "util.py").write_text("x = 1\n")
    tree = api.migrate_tree(tmp_path, ignore=("NPU094",))
    assert tree.root == tmp_path.resolve() and tree.profile == "generic"
    assert not tree.written
    statuses = {f.path: f.status for f in tree.files}
    assert statuses["pkg/train.py"] is Status.CHANGED
    assert statuses.get("pkg/util.py", Status.UNCHANGED) is Status.UNCHANGED
    changed = [f for f in tree.files if f.changed]
    assert [f.new_data for f in changed] == [MIGRATED.encode()]
    assert (tmp_path / "pkg" / "train.py").read_text() == AUTOCAST
    assert (tree.summary.changed, tree.summary.edits) == (1, 1)
    written = api.migrate_tree(tmp_path, ignore=("NPU094",), write=True)
    assert written.written
    assert (tmp_path / "pkg" / "train.py").read_text() == MIGRATED
    assert not any(f.changed for f in api.migrate_tree(tmp_path, ignore=("NPU094",)).files)
    with pytest.raises(api.MigrationError):
        api.migrate_tree(tmp_path / "missing")


def test_the_readme_example_runs() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("### Python API", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["result"].text == "import torch\nx = torch.randn(2).npu()\n"  # type: ignore[attr-defined]
