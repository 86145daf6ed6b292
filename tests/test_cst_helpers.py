"""`string_value` reads a literal as Python does, with or without the shortcut that skips
compiling it."""

from __future__ import annotations

import ast

import libcst as cst
import pytest

from migrator.analysis.cst_helpers import string_value


@pytest.mark.parametrize(
    "literal",
    [
        '"cuda"',
        "'cuda:0'",
        '""',
        "''",
        'u"cuda"',
        'r"cuda\\d"',
        'R"a\\nb"',
        '"""a\nb"""',
        "'''it's'''",
        '"a\\nb"',
        '"tab\\there"',
        '"\\u00e9t\\xe9"',
        '"quote \\" inside"',
        '"npu"',
        '"\u00e9t\u00e9"',
    ],
)
def test_a_string_literal_reads_as_python_reads_it(literal: str) -> None:
    node = cst.parse_expression(literal)
    assert string_value(node) == ast.literal_eval(literal)


@pytest.mark.parametrize("literal", ['b"cuda"', "Rb'cuda'", 'f"cuda"', "x", '"a" "b"'])
def test_bytes_f_strings_and_other_expressions_have_no_string_value(literal: str) -> None:
    assert string_value(cst.parse_expression(literal)) is None


def test_a_triple_quoted_literal_with_crlf_reads_as_python_reads_it() -> None:
    module = cst.parse_module('x = """a\r\nb"""\r\n')
    statement = module.body[0]
    assert isinstance(statement, cst.SimpleStatementLine)
    assign = statement.body[0]
    assert isinstance(assign, cst.Assign)
    assert string_value(assign.value) == "a\nb"
