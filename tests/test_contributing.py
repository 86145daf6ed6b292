"""The example rule in CONTRIBUTING.md is a working rule: it is run here as written."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

from migrator.contract.rule import PythonRule, RuleOptions
from migrator.core.target import NPU
from migrator.engine import registry
from migrator.engine.python import migrate_python

DOC = Path(__file__).resolve().parents[1] / "CONTRIBUTING.md"


def _example_rule() -> type[PythonRule]:
    (block,) = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    module = ModuleType("contributing_example")
    exec(compile(block, str(DOC), "exec"), module.__dict__)
    rule: type[PythonRule] = module.CudaIpcCollect
    return rule


def test_the_example_rule_keeps_the_contract() -> None:
    rule = _example_rule()
    registry.validate([rule])
    assert rule.explain().startswith("Report `torch.cuda.ipc_collect()`. Why:")


def test_the_example_rule_reports_by_qualified_name_and_edits_nothing() -> None:
    rule = _example_rule()
    reported, left_alone = rule.examples
    for full in (False, True):
        found = migrate_python(reported.before, "train.py", [rule], NPU, RuleOptions(), full=full)
        assert found.text == reported.before
        assert [(w.line, w.code, w.message) for w in found.warnings] == [
            (2, "XMP001", "no CUDA IPC memory on the NPU")
        ]
        alone = migrate_python(left_alone.before, "train.py", [rule], NPU, RuleOptions(), full=full)
        assert alone.text == left_alone.before and alone.warnings == []
