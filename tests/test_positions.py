"""`migrator.analysis.positions` reads LibCST internals: pin what it was checked against.

If `pyproject.toml` widens the libcst range, check `code_positions` against the new
releases (this file's comparison with the public `MetadataWrapper`) and update CHECKED.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
from collections.abc import Mapping
from pathlib import Path

import accelerate
import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from migrator.analysis import cst_walk
from migrator.analysis.positions import (
    StatementPositions,
    code_positions,
    module_code,
    spelling,
    statement_texts,
    unique_span,
)
from migrator.analysis.scopes import PassCache
from migrator.analysis.statement_spans import region_spans, statement_starts
from migrator.contract.rule import _STATEMENTS
from migrator.formats.sources import split_lines

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


def test_module_code_is_libcsts_code_of_every_source_and_an_edited_tree() -> None:
    sources = [*SOURCES.values(), *(path.read_text("utf-8") for path in ACCELERATE[:4])]
    for source in sources:
        module = cst.parse_module(source)
        assert module_code(module) == module.code
    assert module_code(cst.parse_module(sources[-1])) == sources[-1]
    # A tree a transform built: new nodes with default whitespace, a changed string.
    edited = cst.parse_module(SOURCES["nested"]).visit(_Retarget())
    assert module_code(edited) == edited.code
    assert '"npu"' in module_code(edited)


class _Retarget(cst.CSTTransformer):
    def leave_SimpleString(
        self, original_node: cst.SimpleString, updated_node: cst.SimpleString
    ) -> cst.BaseExpression:
        return cst.parse_expression('"npu"') if updated_node.value == '"cuda"' else updated_node


ACCELERATE = sorted(
    Path(accelerate.__file__).parent.rglob("*.py"), key=lambda path: -path.stat().st_size
)


# Real code: accelerate's largest modules and LibCST's expression nodes; and shapes the
# statement-by-statement positions must get right (comments and blank lines before a
# statement, a comment between decorators, elif chains, handlers, else and finally
# clauses, a one-line suite, tab and mixed indentation, a `match` statement, whose cases
# are no block of a statement, CRLF line ends).
_REAL = [
    *sorted(Path(accelerate.__file__).parent.rglob("*.py"), key=lambda p: -p.stat().st_size)[:3],
    Path(cst.__file__).parent / "_nodes" / "expression.py",
]
_STATEMENT_SHAPES = {
    **SOURCES,
    "leading_lines": (
        "# head\n\nimport os\n\n\n# about f\n@a  # x\n# between\n@b(\n  1)\n\ndef f():\n"
        "    # in f\n\n    if x:\n        y = 1\n    # before elif\n    elif z:\n"
        "        pass\n    else:\n        w = (1,\n  2)\n    try: a()\n    except E as e:\n"
        "        # handler\n        b()\n    finally:\n        c()\n"
    ),
    "tabs_and_match": (
        "class K:\n\tdef m(self):\n\t\tmatch v:\n\t\t\tcase 1:\n\t\t\t\tx = cuda()\n"
        "\t\treturn [\n1]\n"
    ),
    # A block indented otherwise than the module's default.
    "uneven_indent": "def f():\n    if x:\n      y = 1\n      z = g(\n 1)\n    return 2\n",
    "crlf": "def f():\r\n    # c\r\n    x = 1\r\n\r\n    return x\r\n",
    # LibCST drops a form feed before a line's first token from the code it generates.
    "form_feed_before_code": (
        "import torch\n\x0cy = torch.cuda.current_device()\nz = 2\n"
        "def f():\n    a = 1\n\x0c    x = torch.cuda.current_device()\n"
    ),
}


def _statement_cases() -> list[tuple[str, str]]:
    found = sorted(_STATEMENT_SHAPES.items())
    found += [(path.name, path.read_text(encoding="utf-8")) for path in _REAL]
    return found


class _Paths(cst.CSTVisitor):
    """Each node with the statements it is in, as `PythonRule` keeps them."""

    def __init__(self) -> None:
        super().__init__()
        self.path: list[cst.CSTNode] = []
        self.found: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) in _STATEMENTS:
            self.path.append(node)
        self.found.append((node, tuple(self.path)))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if type(original_node) in _STATEMENTS:
            self.path.pop()


def _paths_of(module: cst.Module) -> list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]:
    """Each node of `module` with the statements it is in (`_Paths`), in walk order."""
    walk = _Paths()
    module.visit(walk)
    return walk.found


def _statement_positions(
    text: str,
) -> tuple[cst.Module, Mapping[cst.CSTNode, tuple[int, int, int, int]], StatementPositions]:
    """The module, its whole tree's positions and its statement positions."""
    module = cst.parse_module(text)
    tree = ast.parse(text)
    starts = statement_starts(region_spans(module, tree.body, 0, split_lines(text)), 0)
    return module, code_positions(module), StatementPositions(module, starts)


@pytest.mark.parametrize(("name", "text"), _statement_cases())
def test_statement_positions_equal_the_whole_trees(name: str, text: str) -> None:
    module = cst.parse_module(text)
    lines = split_lines(text)
    tree = ast.parse(text)
    starts = statement_starts(region_spans(module, tree.body, 0, lines), 0)
    whole = code_positions(module)
    found = _paths_of(module)
    positions = StatementPositions(module, starts)
    inside = [(node, path) for node, path in found if path]
    for node, path in inside:
        assert positions.span(node, path) == whole[node], (name, node)
    # Each node in a statement was served by a statement's own code generation.
    assert positions._whole is None
    assert len(inside) > 0 or not module.body
    # The module's own node and its header and footer lines come from the whole tree's.
    for node, path in found:
        assert positions.span(node, path) == whole[node], (name, node)


@pytest.mark.parametrize(("name", "text"), _statement_cases())
def test_a_module_level_statement_asked_outside_the_walk_needs_no_whole_tree(
    name: str, text: str
) -> None:
    # A whole-module rule reports a module-level statement from leave_Module, where the
    # walk is in no statement: its position comes from its own code generation.
    module, whole, positions = _statement_positions(text)
    for statement in module.body:
        assert positions.span(statement, ()) == whole[statement], (name, statement)
    assert positions._whole is None
    # Another node with no path still gets the whole tree's.
    if module.body:
        inner = next(iter(whole.keys() - set(module.body) - {module}), None)
        if inner is not None:
            assert positions.span(inner, ()) == whole[inner]
            assert positions._whole is not None


@pytest.mark.parametrize(("name", "text"), _statement_cases())
def test_a_statements_first_line_is_its_first_tokens_without_code_generation(
    name: str, text: str
) -> None:
    module, whole, positions = _statement_positions(text)
    for node, path in _paths_of(module):
        if type(node) in _STATEMENTS and not (len(path) > 1 and _is_elif(path[-2], node)):
            decorators = getattr(node, "decorators", ())
            first = whole[decorators[0] if decorators else node][0]
            assert positions.first_line(node, path) == first, (name, node)
    assert positions._whole is None


@pytest.mark.parametrize(("name", "text"), _statement_cases())
def test_header_positions_asked_before_their_statements_equal_the_whole_trees(
    name: str, text: str
) -> None:
    # A node of a compound statement's header, asked before the statement itself, is
    # served by the header's code generation alone; the statement's body and the
    # statement then by the whole statement's.
    module, whole, positions = _statement_positions(text)
    inside = [(node, path) for node, path in _paths_of(module) if path]
    for node, path in [*inside[::-1], *inside]:
        assert positions.span(node, path) == whole[node], (name, node)
    assert positions._whole is None


def test_a_node_in_a_functions_signature_does_not_generate_its_body() -> None:
    text = "@wraps(g)\ndef f(device='cuda'):\n    x = 1\n    return x\n"
    module, whole, positions = _statement_positions(text)
    function = module.body[0]
    assert isinstance(function, cst.FunctionDef)
    default = function.params.params[0].default
    assert default is not None
    assert positions.span(default, (function,)) == whole[default] == (2, 13, 2, 19)
    generated = positions._by_statement[id(function)]
    assert generated is not None and function.body not in generated
    # The function itself, and a node of its body asked with it alone as the path.
    assert positions.span(function, (function,)) == whole[function]
    body = function.body.body[0]
    assert positions.span(body, (function,)) == whole[body]


def _is_elif(parent: cst.CSTNode, node: cst.CSTNode) -> bool:
    return isinstance(parent, cst.If) and parent.orelse is node


class _AddLines(cst.CSTTransformer):
    """An edit that moves the lines below it: a statement added after each assignment."""

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        if any(isinstance(item, cst.Assign) for item in updated_node.body):
            return cst.FlattenSentinel([updated_node, cst.parse_statement("added = 1\n")])
        return updated_node


@pytest.mark.parametrize(("name", "text"), _statement_cases())
def test_positions_after_an_edit_come_from_a_parse_of_the_edited_code(name: str, text: str) -> None:
    from migrator.engine.python import _starts_of

    edited = cst.parse_module(text).visit(_AddLines())
    code = edited.code
    whole = code_positions(edited)
    found = _paths_of(edited)
    positions = StatementPositions(edited, _starts_of(edited, code, 0))
    for node, path in [(node, path) for node, path in found if path]:
        assert positions.span(node, path) == whole[node], (name, node)
    if "added = 1" in code:
        assert positions._whole is None, "served by the statements' own code generation"
    for node, path in found:
        assert positions.span(node, path) == whole[node], (name, node)


def test_positions_after_an_edit_inside_a_methods_stand_in_class() -> None:
    from migrator.engine.python import _starts_of

    text = "class K:\n    def m(self):\n        x = 1\n        return x.cuda()\n"
    edited = cst.parse_module(text).visit(_AddLines())
    whole = code_positions(edited)
    positions = StatementPositions(edited, _starts_of(edited, edited.code, 1))
    for node, path in _paths_of(edited)[1:]:
        if len(path) > 1:
            assert positions.span(node, path) == whole[node], node
    assert positions._whole is None
    # Code that no longer parses leaves the whole tree's code generation to serve.
    assert _starts_of(edited, "class K:\n  def (\n", 1) == {}


def test_plain_parentheses_give_libcsts_code_and_put_its_hook_back() -> None:
    from libcst._nodes.expression import _BaseParenthesizedNode

    from migrator.analysis import positions

    hook = vars(_BaseParenthesizedNode)["_parenthesize"]
    text = "x = ((a) + (b.c))(((1)), [(2)], f'{(y)}')\nif (z):\n    (w).v = ('s')\n"
    module = cst.parse_module(text)
    assert module_code(module) == text == module.code
    whole = code_positions(module)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for node, found in wrapper.items():
        assert whole[node] == (
            found.start.line,
            found.start.column,
            found.end.line,
            found.end.column,
        )
    assert vars(_BaseParenthesizedNode)["_parenthesize"] is hook
    # A code generation that fails puts the hook back too.
    broken = module.with_changes(body=[object()])
    with pytest.raises(AttributeError):
        module_code(broken)
    assert vars(_BaseParenthesizedNode)["_parenthesize"] is hook
    # Inside, the plain context manager stands in for it.
    with positions._plain_parentheses():
        assert vars(_BaseParenthesizedNode)["_parenthesize"] is positions._parenthesized


class _EveryThird(cst.CSTTransformer):
    """Rewrites every third simple statement line (its trailing comment) and indents every
    fourth block with a tab: the statements inside it keep their nodes but not their
    indentation."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0
        self.blocks = 0

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        self.seen += 1
        if self.seen % 3:
            return updated_node
        comment = cst.TrailingWhitespace(
            whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment("# edited")
        )
        return updated_node.with_changes(trailing_whitespace=comment)

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        self.blocks += 1
        return updated_node.with_changes(indent="\t") if self.blocks % 4 == 0 else updated_node


_NO_NEWLINE_AT_END = "def f():\n    x = 1\n    return x"
_FORM_FEED = "x = 1\n\x0c\ny = 2\n"
_CONTINUED = "x = 1 + \\\n    2\ny = 3\n"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        *_statement_cases(),
        ("no_newline_at_end", _NO_NEWLINE_AT_END),
        ("form_feed", _FORM_FEED),
        ("continued", _CONTINUED),
    ],
)
def test_an_edited_trees_code_with_its_known_statements_is_libcsts(name: str, text: str) -> None:
    """`module_code` with the code of the original's statements (`statement_texts`) gives
    LibCST's code of an edited tree: the known code serves only the statements the edit
    left as they were and where they were (not in a block it indented otherwise)."""
    module = cst.parse_module(text)
    tree = ast.parse(text)
    starts = statement_starts(region_spans(module, tree.body, 0, split_lines(text)), 0)
    texts = statement_texts(starts, split_lines(text))
    assert module_code(module, texts) == module.code, name
    # The engine's walk, which keeps the nodes no edit is under (LibCST's rebuilds all).
    edited = cst_walk.transform(module, _EveryThird(), False)
    assert module_code(edited, texts) == edited.code, name


def test_only_the_statements_an_edit_rebuilt_are_generated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from migrator.analysis import positions

    text = "import os\n\n\ndef f(a):\n    # c\n    x = a\n\n    return x\n\n\n"
    text += "y = 2\nz = [\n    3,\n]\n"
    module = cst.parse_module(text)
    tree = ast.parse(text)
    starts = statement_starts(region_spans(module, tree.body, 0, split_lines(text)), 0)
    texts = statement_texts(starts, split_lines(text))
    # import, x = a, return x, y = 2, z = [...]
    assert len(texts) == 5

    class Three(cst.CSTTransformer):
        def leave_Integer(
            self, original_node: cst.Integer, updated_node: cst.Integer
        ) -> cst.Integer:
            return (
                updated_node.with_changes(value="3") if original_node.value == "2" else updated_node
            )

    edited = cst_walk.transform(module, Three(), False)
    generated: list[cst.CSTNode] = []
    generate = positions._GENERATED

    def recording(self: cst.SimpleStatementLine, state: object) -> None:
        generated.append(self)
        generate(self, state)

    monkeypatch.setattr(positions, "_GENERATED", recording)
    code = module_code(edited, texts)
    assert code == edited.code == text.replace("y = 2", "y = 3")
    # The statement the edit rebuilt, with its leading blank lines: no other.
    assert [cst.Module([]).code_for_node(node) for node in generated] == ["\n\ny = 3\n"]


_SPELLINGS = {
    # Dotted names with and without what makes them unspelt (a space, a comment or
    # parentheses inside), strings over lines, numbers, and each twice or once.
    "dotted": (
        "import torch\ntorch.cuda.synchronize()\nx = torch . cuda\n"
        "y = (torch).cuda.is_available()\nz = (torch.cuda).current_device()\n"
        "w = torch.\\\n    npu\n"
    ),
    "strings": "a = '''one\ntwo'''\nb = 'cuda'\nc = ('cuda')\nd = 1.5j + 0x1F + 2.0\n",
    "crlf": "a = '''one\r\ntwo'''\r\nb = torch.cuda\r\n",
    "lone_cr": "a = '''one\rtwo'''\rb = torch.cuda\r",
}


@pytest.mark.parametrize(("name", "text"), [*sorted(_SPELLINGS.items()), *_statement_cases()])
def test_a_nodes_spelling_found_once_in_the_code_is_where_it_is(name: str, text: str) -> None:
    module = cst.parse_module(text)
    whole = code_positions(module)
    # The positions count LibCST's code, which drops a form feed before a line's first
    # token: no position is read off a text that has one.
    lines = split_lines(module.code)
    served = 0
    for node, (line, column, end_line, end_column) in whole.items():
        spelt = spelling(node)
        if spelt is None:
            continue
        # A spelling is the node's code between its syntactic ends.
        inside = "".join(lines[line - 1 : end_line])
        end = len(inside) - len(lines[end_line - 1]) + end_column
        assert inside[column:end] == spelt, (name, spelt)
        found = unique_span(text, spelt)
        if found is not None:
            served += 1
            assert found == (line, column, end_line, end_column), (name, spelt)
    assert served == 0 if "\f" in text else served > 0 or not any(map(spelling, whole))


def test_a_spelling_that_occurs_twice_is_not_placed() -> None:
    text = "x = 'cuda'\n# 'cuda' in a comment\n"
    assert unique_span(text, "'cuda'") is None
    assert unique_span(text, "'npu'") is None
    # Overlapping occurrences count: "aa" occurs twice in "aaa".
    assert unique_span("aaa", "aa") is None


def test_a_span_found_in_the_known_code_generates_none() -> None:
    text = "import torch\nx = torch.zeros(1, device='cuda')\ny = torch.ones(2)\n"
    module = cst.parse_module(text)
    cache = PassCache()
    cache.know_code(module, text)
    found = dict(_paths_of(module))
    whole = code_positions(module)
    device = next(node for node in found if spelling(node) == "'cuda'")
    assert cache.span(module, device, found[device]) == whole[device]
    assert cache._positions is None
    # A spelling that occurs twice (`torch`) is placed by the code generation.
    torch = next(node for node in found if spelling(node) == "torch" and found[node])
    assert cache.span(module, torch, found[torch]) == whole[torch]
    assert cache._positions is not None
