"""The tables of a large module after its regions changed, read off the original's tree
(`python._moved_tables`): the same as a parse of the changed text, or None."""

from __future__ import annotations

import ast
import random

import pytest

from migrator.analysis.statement_spans import data_assignments
from migrator.engine import python

WORDS = ("cuda", "npu")


def _table(name: str, rows: int = 400) -> list[str]:
    return [f"{name} = {{\n", *(f"    'k{i}': ({i}, {i * 2}),\n" for i in range(rows)), "}\n"]


def _function(name: str, body: int = 3) -> list[str]:
    return [f"def {name}():\n", *(f"    x{i} = torch.cuda.current_device()\n" for i in range(body))]


def _changed(lines: list[str], changes: list[tuple[int, int, list[str]]]) -> list[str]:
    new = list(lines)
    for first, last, replaced in reversed(changes):
        new[first - 1 : last] = replaced
    return new


def _truth(lines: list[str]) -> list[tuple[int, int]]:
    return data_assignments(ast.parse("".join(lines)), lines, WORDS, python._LARGE_TABLE)


def _moved(lines: list[str], changes: list[tuple[int, int, list[str]]]) -> python._Moved:
    return python._Moved(ast.parse("".join(lines)), lines, changes)


def _span(lines: list[str], head: str) -> tuple[int, int]:
    """The lines of the function whose first line is `head`."""
    first = lines.index(head) + 1
    last = first
    while last < len(lines) and lines[last].startswith("    "):
        last += 1
    return first, last


def test_tables_after_a_change_that_adds_lines_move_by_them() -> None:
    lines = ["import torch\n", *_table("A"), *_function("f"), *_table("B"), *_function("g")]
    first, last = _span(lines, "def f():\n")
    new = ["def f():\n", "    import torch_npu\n", *lines[first:last], "    y = 1\n"]
    changes = [(first, last, new)]
    found = python._moved_tables(_moved(lines, changes), WORDS)
    assert found == _truth(_changed(lines, changes))
    assert found is not None and len(found) == 2


def test_a_change_in_a_table_or_one_that_makes_one_reads_the_changed_text() -> None:
    lines = ["import torch\n", *_table("A"), *_function("f")]
    # An edit inside the table.
    assert python._moved_tables(_moved(lines, [(5, 5, ["    'k3': (3, 7),\n"])]), WORDS) is None
    # A statement rewritten into a table as long as one.
    first, last = _span(lines, "def f():\n")
    assert python._moved_tables(_moved(lines, [(first, last, _table("C"))]), WORDS) is None
    # A last line that ends in a backslash glues the next statement to it.
    ending = ["x = 1  # a comment that ends in \\\n"]
    assert python._moved_tables(_moved(lines, [(first, last, ending)]), WORDS) is None


def test_a_class_members_change_keeps_the_class_a_class() -> None:
    members = [
        f"    def m{i}(self):\n        return torch.cuda.current_device()\n" for i in range(80)
    ]
    lines = ["import torch\n", "class K:\n", *"".join(members).splitlines(keepends=True)]
    lines += _table("A")
    changes = [(3, 4, ["    def m0(self):\n", "        return torch.npu.current_device()\n"])]
    found = python._moved_tables(_moved(lines, changes), WORDS)
    assert found == _truth(_changed(lines, changes)) and found


@pytest.mark.parametrize("seed", range(20))
def test_random_modules_agree_with_a_parse_of_the_changed_text(seed: int) -> None:
    rng = random.Random(seed)
    lines: list[str] = ["import torch\n"]
    for index in range(rng.randint(2, 8)):
        kind = rng.choice(["table", "small", "function", "cuda_table"])
        if kind == "table":
            lines += _table(f"T{index}", rng.choice([10, 400]))
        elif kind == "cuda_table":
            lines += [f"T{index} = {{\n", *("    'd': 'cuda:0',\n" for _ in range(300)), "}\n"]
        elif kind == "small":
            lines += [f"S{index} = [1, 2, 3]\n"]
        else:
            lines += _function(f"f{index}", rng.randint(1, 5))
    functions = [i + 1 for i, line in enumerate(lines) if line.startswith("def ")]
    changes = []
    for first in sorted(rng.sample(functions, rng.randint(0, len(functions)))):
        _, last = _span(lines, lines[first - 1])
        grown = rng.choice([0, 1, 3])
        changes.append((first, last, [*lines[first - 1 : last], *["    pass\n"] * grown]))
    found = python._moved_tables(_moved(lines, changes), WORDS)
    assert found == _truth(_changed(lines, changes))
