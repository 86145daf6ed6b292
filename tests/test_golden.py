"""Every golden case: expected output and report, both engine paths, idempotent, parseable."""

from __future__ import annotations

import ast

import libcst as cst
import pytest

from migrator.core.model import Status
from tests.golden_cases import Case, cases, report_lines, run_case

CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_golden_case(case: Case, update_golden: bool) -> None:
    data = case.source.read_bytes()
    result = run_case(case, data, full=False)
    assert result.status is not Status.FAILED, result.error
    output = result.new_data if result.new_data is not None else data
    lines = report_lines(result)
    if update_golden:
        case.expected.write_bytes(output)
        case.changes_file.write_text("".join(f"{line}\n" for line in lines))
    assert output == case.expected.read_bytes(), f"{case.id}: output differs from golden"
    assert lines == case.changes_file.read_text().splitlines(), f"{case.id}: report differs"

    full = run_case(case, data, full=True)
    full_output = full.new_data if full.new_data is not None else data
    assert full_output == output, f"{case.id}: the full LibCST path disagrees with the fast path"
    assert report_lines(full) == lines

    again = run_case(case, output, full=False)
    assert again.new_data is None, f"{case.id}: a second run changes the output again"
    assert not again.changes, f"{case.id}: a second run reports edits"

    if case.suffix == ".py":
        ast.parse(output.decode())
        cst.parse_module(output.decode())


def test_every_rule_has_golden_cases() -> None:
    from migrator.engine import registry

    covered = {case.rule for case in CASES}
    missing = [rule.name for rule in registry.load().rules if rule not in covered]
    assert not missing, f"rules without golden cases: {missing}"
