"""`migrator.analysis.positions` reads LibCST internals: pin what it was checked against.

If `pyproject.toml` widens the libcst range, check `code_positions` against the new
releases (this file's comparison with the public `MetadataWrapper`) and update CHECKED.
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from migrator.analysis.positions import code_positions

PYPROJECT = Path(__file__).parent.parent / "pyproject.toml"
# The libcst requirement code_positions was checked against.
CHECKED = "libcst>=1.5,<2"

SOURCES = {
    "nested": (
        "import torch\n\n\nclass A:\n    def f(self):\n"
        '        return torch.zeros(1, device="cuda")  # c\n'
    ),
    "crlf_and_tabs": "if x:\r\n\ty = [\r\n\t\t1,\r\n\t]\r\n",
    "strings_and_walrus": 'f"{a!r:>{w}}"\nif (n := len(b)) > 1:\n    pass\n',
    # Compound statements whose syntactic position ends at their body's last statement
    # (`end_node`) or spans a block's statements (`start_node`), decorators, else and
    # finally clauses, a multi-line string, a semicolon line, no trailing newline.
    "compound": (
        "@dec(1)\n@other\ndef f(a,\n      b=2):\n    try:\n        x = 1; y = 2\n"
        "    except (A, B) as e:\n        pass\n    else:\n        z = '''a\nb'''\n"
        "    finally:\n        del x\n    while a:\n        break\n    else:\n"
        "        continue\n    with open(p) as h, q:  # note\n        return [i for i in h]\n"
        "class C(B, metaclass=M): x = 1\nfor i in range(3): pass\n"
        "match v:\n    case [1, *rest] if rest:\n        pass\n    case _:\n        ..."
    ),
    "cr_newlines": "x = [1,\r     2]\ry = 3\r",
    "empty": "",
    "comments_only": "# a\n\n# b\n",
}


def test_pyproject_allows_only_the_checked_libcst_versions() -> None:
    # tomllib is 3.11+: the requirement strings are found by pattern.
    found = re.findall(r'"(libcst\b[^"]*)"', PYPROJECT.read_text(encoding="utf-8"))
    assert [requirement.replace(" ", "") for requirement in found] == [CHECKED]


def test_installed_libcst_is_in_the_checked_range() -> None:
    major, minor = (int(part) for part in importlib.metadata.version("libcst").split(".")[:2])
    assert (1, 5) <= (major, minor) < (2, 0)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_code_positions_equal_the_metadata_wrappers(name: str) -> None:
    module = cst.parse_module(SOURCES[name])
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    as_tuples = {
        node: (where.start.line, where.start.column, where.end.line, where.end.column)
        for node, where in expected.items()
    }
    assert dict(code_positions(module)) == as_tuples
