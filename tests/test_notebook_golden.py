"""Every Python golden case also migrates inside a notebook cell, as it does in a file.

The notebook pre-filter once read only the rules' plain tokens, so a notebook whose only
CUDA code matched a token *pattern* (`.cuda()`) was silently left alone. Running every
golden case of every rule that applies to notebooks through a one-cell notebook keeps the
file kinds on one pre-filter.
"""

from __future__ import annotations

import json

import pytest

from migrator.contract.rule import PythonRule
from migrator.core.model import Status
from migrator.core.target import NPU
from migrator.engine.files import migrate_text
from migrator.engine.settings import Settings
from tests.golden_cases import Case, cases

CASES = [
    case
    for case in cases()
    if case.suffix == ".py"
    and issubclass(case.rule, PythonRule)
    and case.rule.trigger.notebooks
    and not case.rule.trigger.paths
    and not case.options.entry_points
]


def one_cell(source: str) -> bytes:
    book = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "c0",
                "metadata": {},
                "outputs": [],
                "source": source.splitlines(keepends=True),
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return (json.dumps(book, indent=1, ensure_ascii=False) + "\n").encode()


def cell_source(data: bytes) -> str:
    return "".join(json.loads(data)["cells"][0]["source"])


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_golden_case_in_a_notebook_cell(case: Case) -> None:
    source = case.source.read_text()
    expected = case.expected.read_text()
    settings = Settings(NPU, (case.rule.code,), case.options, project=case.project)
    name = case.path.rsplit(".", 1)[0] + ".ipynb"
    result = migrate_text(name, one_cell(source), settings)
    assert result.status is not Status.FAILED, result.error
    output = cell_source(result.new_data) if result.new_data is not None else source
    assert output == expected, f"{case.id}: the cell differs from the file's golden output"
