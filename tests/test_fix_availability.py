"""Each rule's declared fix availability (always / sometimes / never) matches what it does."""

from __future__ import annotations

import re

import pytest

from migrator.contract.rule import Rule
from migrator.core.model import FixAvailability
from migrator.engine import registry
from tests.golden_cases import cases
from tests.helpers import invoke

RULES = registry.load().rules
_FINDING = re.compile(r": [A-Z]{3}\d{3}( \[needs review\])?(?P<warning> warning:)? ")


def _golden_kinds(rule: type[Rule]) -> set[str]:
    kinds: set[str] = set()
    for case in cases():
        if case.rule is rule and case.changes_file.exists():
            for line in case.changes_file.read_text(encoding="utf-8").splitlines():
                match = _FINDING.search(line)
                if match is not None:
                    kinds.add("warning" if match.group("warning") else "edit")
    return kinds


@pytest.mark.parametrize("rule", RULES, ids=[rule.code for rule in RULES])
def test_fix_availability_matches_the_examples_and_golden_cases(rule: type[Rule]) -> None:
    kinds = _golden_kinds(rule)
    availability = rule.fix_availability
    if availability is FixAvailability.NEVER:
        assert "edit" not in kinds
        for example in rule.examples:
            assert example.after in (None, example.before)
    elif availability is FixAvailability.ALWAYS:
        assert "warning" not in kinds
    else:
        assert "edit" in kinds, "a rule that edits in no golden case: declare it never?"


def test_list_rules_has_a_header_and_calls_no_report_only_rule_safe() -> None:
    listed = invoke("--list-rules").stdout.splitlines()
    assert listed[0].split() == ["CODE", "NAME", "FIX", "SAFETY", "PACKAGE", "SUMMARY"]
    rows = {
        line.split()[0]: line.split() for line in listed[1:] if re.match(r"[A-Z]{3}\d{3} ", line)
    }
    assert rows["NPU050"][2:4] == ["never", "-"]
    assert rows["NPU001"][2:4] == ["always", "safe"]
    assert rows["NPU030"][2:5] == ["sometimes", "needs", "review"]
