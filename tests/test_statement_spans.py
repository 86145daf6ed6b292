"""Statement spans: which lines each LibCST statement of a region spans, read off the
stdlib ast, and the engine not walking a `local` rule into statements without its token."""

from __future__ import annotations

import ast
from typing import ClassVar

import libcst as cst

from migrator.analysis.statement_spans import Spanned, cold, data_statements, region_spans
from migrator.contract.rule import PythonRule, RuleOptions
from migrator.contract.trigger import Trigger
from migrator.core.model import FixAvailability, Safety
from migrator.core.target import NPU
from migrator.engine import registry
from migrator.engine.python import migrate_python
from migrator.formats.sources import split_lines

SOURCE = """\
@decorate(1)
def f(a):
    x = 1; y = 2
    z = a + \\
        1
    if a:
        b = 1
    elif x:
        b = 2
    else:
        b = 3
    for i in a:
        pass
    else:
        c = 1
    while a:
        break
    with open(a) as h:
        h.read()
    try:
        d = 1
    except ValueError:
        d = 2
    else:
        d = 3
    finally:
        d = 4
    match a:
        case 1:
            e = 1
"""


def _spans(source: str) -> tuple[Spanned, ...]:
    tree = ast.parse(source)
    return region_spans(cst.parse_module(source), tree.body, 0, split_lines(source))


def _flat(spans: tuple[Spanned, ...]) -> list[tuple[str, int, int]]:
    found: list[tuple[str, int, int]] = []
    for span in spans:
        found.append((type(span.node).__name__, span.first, span.last))
        found.extend(_flat(span.inner))
    return found


def test_every_statement_of_every_block_gets_its_lines() -> None:
    assert _flat(_spans(SOURCE)) == [
        ("FunctionDef", 1, 30),  # the decorator included
        ("SimpleStatementLine", 3, 3),  # `x = 1; y = 2`: one LibCST statement
        ("SimpleStatementLine", 4, 5),  # a backslash continuation
        ("If", 6, 11),
        ("SimpleStatementLine", 7, 7),
        ("If", 8, 11),  # the elif, with the else it holds
        ("SimpleStatementLine", 9, 9),
        ("SimpleStatementLine", 11, 11),
        ("For", 12, 15),
        ("SimpleStatementLine", 13, 13),
        ("SimpleStatementLine", 15, 15),
        ("While", 16, 17),
        ("SimpleStatementLine", 17, 17),
        ("With", 18, 19),
        ("SimpleStatementLine", 19, 19),
        ("Try", 20, 27),
        ("SimpleStatementLine", 21, 21),
        ("SimpleStatementLine", 23, 23),
        ("SimpleStatementLine", 25, 25),
        ("SimpleStatementLine", 27, 27),
        ("Match", 28, 30),  # its cases get no spans: nothing in them is skipped
    ]


def test_a_method_inside_stand_in_classes_is_paired_below_them() -> None:
    header = "class Outer:\n    class Inner:\n"
    body = "        def m(self):\n            a = 1\n            b = 2\n"
    # The file's lines: the region's statement sits at lines 3-5 of the file as well.
    lines = split_lines(header + body)
    method = ast.parse(header + body).body[0].body[0].body[0]  # type: ignore[attr-defined]
    spans = region_spans(cst.parse_module(header + body), [method], 2, lines)
    assert _flat(spans) == [
        ("FunctionDef", 3, 5),
        ("SimpleStatementLine", 4, 4),
        ("SimpleStatementLine", 5, 5),
    ]


def test_trees_that_do_not_pair_give_no_spans() -> None:
    module = cst.parse_module("a = 1\nb = 2\n")
    other = ast.parse("a = 1\n")
    assert region_spans(module, other.body, 0, ["a = 1\n", "b = 2\n"]) == ()
    # A compound statement against a simple one, and a block whose counts differ.
    assert _spans("if a:\n    b = 1\n") != ()
    mismatched = ast.parse("x = 1\n").body
    assert region_spans(cst.parse_module("if a:\n    b = 1\n"), mismatched, 0, []) == ()
    inner = region_spans(
        cst.parse_module("def f():\n    a = 1\n    b = 2\n"),
        ast.parse("def f():\n    a = 1\n").body,
        0,
        [],
    )
    assert _flat(inner) == [("FunctionDef", 1, 2)]  # its block alone is left unpaired


def test_cold_statements_are_the_outermost_without_a_hot_line() -> None:
    spans = _spans(SOURCE)
    function = spans[0]
    by_line = {span.first: span for span in function.inner}
    found = cold(spans, [9])  # the elif's body
    assert id(function.node) not in found
    assert id(by_line[6].node) not in found  # the if chain holds line 9
    if_chain = by_line[6]
    elif_ = if_chain.inner[1]
    assert id(if_chain.inner[0].node) in found  # `b = 1` under the if
    assert id(elif_.node) not in found
    assert id(elif_.inner[0].node) not in found
    assert id(elif_.inner[1].node) in found  # the else's `b = 3`
    for first in (3, 4, 12, 16, 18, 20, 28):
        assert id(by_line[first].node) in found
    assert cold(spans, []) == {id(function.node)}


class _Seen(PythonRule):
    """A test rule that records the simple statements it is walked into."""

    code = "TST901"
    name = "seen"
    summary = "records the statements it visits"
    safety = Safety.SAFE
    fix_availability = FixAvailability.NEVER
    action = "port-code"
    trigger = Trigger(tokens=("torch.cuda",), local=True)
    seen: ClassVar[list[str]] = []

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        type(self).seen.append(cst.Module([]).code_for_node(node).strip())


class _SeenEverywhere(_Seen):
    code = "TST902"
    trigger = Trigger(tokens=("torch.cuda",))
    seen: ClassVar[list[str]] = []


def _seen(rule: type[_Seen], text: str) -> list[str]:
    rule.seen = []
    migrate_python(text, "m.py", [rule], NPU, RuleOptions())
    return rule.seen


TRAIN = (
    "import torch\n\n"
    "def train(model):\n"
    "    model.train()\n"
    "    if torch.cuda.is_available():\n"
    "        n = torch.cuda.device_count()\n"
    "        log(n)\n"
    "    return model\n"
)


def test_a_local_rule_is_walked_only_into_statements_with_its_token() -> None:
    assert _seen(_Seen, TRAIN) == ["n = torch.cuda.device_count()"]
    assert _seen(_SeenEverywhere, TRAIN) == [
        "model.train()",
        "n = torch.cuda.device_count()",
        "log(n)",
        "return model",
    ]


def test_a_name_an_import_inside_the_region_binds_counts_as_a_token() -> None:
    # `tc` spells no token, but the import inside the function binds it to torch.cuda.
    text = "def f():\n    import torch.cuda as tc\n    x = 1\n    tc.synchronize()\n"
    assert _seen(_Seen, text) == ["import torch.cuda as tc", "tc.synchronize()"]
    nested = "def f():\n    if x:\n        import torch.cuda as tc\n    y = 2\n    tc.init()\n"
    assert _seen(_Seen, nested) == ["import torch.cuda as tc", "tc.init()"]


LOCAL_RULES = [
    rule for rule in registry.load().rules if issubclass(rule, PythonRule) and rule.trigger.local
]
NESTED = (
    "import torch\n\n"
    "class Trainer:\n"
    "    def step(self, x):\n"
    "        import torch.cuda as tc\n"
    "        y = x\n"
    "        tc.synchronize()\n"
    "    def move(self, x, y):\n"
    "        if y:\n"
    "            pass\n"
    "        elif torch.cuda.is_available():\n"
    "            x = x.to('cuda'); y = 1\n"
    "        else:\n"
    "            z = 1\n"
    "        try:\n"
    "            n = torch.cuda.device_count()\n"
    "        except RuntimeError:\n"
    "            n = 0\n"
    "        return x\n"
)


def test_the_local_rules_give_the_full_paths_output() -> None:
    assert {rule.code for rule in LOCAL_RULES} >= {"NPU010", "NPU012"}
    full = migrate_python(NESTED, "t.py", LOCAL_RULES, NPU, RuleOptions(), full=True)
    fast = migrate_python(NESTED, "t.py", LOCAL_RULES, NPU, RuleOptions())
    assert "tc.synchronize" not in full.text  # the alias bound inside the method
    assert (fast.text, fast.changes, fast.warnings) == (full.text, full.changes, full.warnings)


GENERIC = [
    rule
    for rule in registry.load().for_profile(registry.load().profile("generic"))  # type: ignore[arg-type]
    if issubclass(rule, PythonRule)
]


def test_a_rule_that_reports_code_without_its_token_is_not_local() -> None:
    # NPU077 reports an if chain whose device mention it reads in any case ("Cuda"), which
    # its tokens do not match: walked only where a token is, it would miss the chain.
    text = (
        "import torch\n\ndef f(x):\n    y = torch.zeros(1).to('cuda')\n"
        "    if is_torch_npu_available():\n        x = 1\n"
        "    elif 'Cuda' in x:\n        x = 2\n    return y\n"
    )
    full = migrate_python(text, "m.py", GENERIC, NPU, RuleOptions(), full=True)
    fast = migrate_python(text, "m.py", GENERIC, NPU, RuleOptions())
    assert ("NPU077", 5) in [(finding.code, finding.line) for finding in full.findings]
    assert fast.findings == full.findings


def test_plain_data_statements_are_the_tables_without_a_word() -> None:
    code = (
        '"""Doc."""\n'
        "import torch\n"
        "TABLE: dict = {(1, 'a'): [2, -3.5, None], **OTHER}\n"
        "NAMES = ('x', b'y'); LIMIT = 2 ** 10\n"
        "DEVICES = {'gpu': 'cuda:0'}\n"
        "BYTES = [b'cuda']\n"
        "CALLED = [len(x) for x in 'ab']\n"
        "LAZY = lambda: 1\n"
        "FORMATTED = f'{x}'\n"
        "x[1:2] = y.z\n"
        "if TABLE:\n    pass\n"
    )
    module = cst.parse_module(code)
    found = data_statements(module, code, split_lines(code), ("cuda", "npu"))
    # The docstring, TABLE, the line of NAMES and LIMIT, and the slice assignment.
    assert found == {id(module.body[i]) for i in (0, 2, 3, 9)}
    # A text that does not pair with the tree (or does not parse) gives none.
    assert data_statements(module, code + "z = 1\n", split_lines(code + "z = 1\n"), ("c",)) == set()
    assert data_statements(module, "x = (", ["x = ("], ("cuda",)) == set()
