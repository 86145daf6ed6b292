"""A region's cold statements stood in for (`migrator.analysis.skeletons`): the stand-ins
bind what the statements bound, the fast path still gives the full path's output, and
what must be read whole (an `if` chain's bodies, a rule that reads around) is not stood
in."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import accelerate
import libcst as cst
import pytest

from migrator.analysis.scopes import class_bindings, function_bindings
from migrator.analysis.skeletons import MARK, Skeleton, cold_skeleton, restored, scope_bindings
from migrator.contract.rule import PythonRule, RuleOptions
from migrator.core.target import NPU
from migrator.engine import registry
from migrator.engine.python import migrate_python
from migrator.formats.sources import split_lines
from tests.helpers import record_parses

RULES = [
    rule
    for rule in registry.load().for_profile(registry.load().profile("generic"))  # type: ignore[arg-type]
    if issubclass(rule, PythonRule)
]

# Every way a statement binds a name in its scope, and ways that bind none there.
BINDINGS = '''\
def f(p, *args, q=1, **kw):
    """A docstring."""
    a = 1
    b, (c, *d) = 1, (2, 3)
    e: int
    g: int = 2
    h += 1
    i[0] = j.k = 3
    del a
    for m, n in []:
        o = m
    else:
        r = 4
    while False:
        s = 5
    with open("x") as t, open("y") as (u, v):
        w = 6
    try:
        aa = 7
    except ValueError as bb:
        cc = 8
    else:
        dd = 9
    finally:
        ee = 10
    if (ff := 11) > 0:
        gg = [hh for hh in range(3) if (ii := hh)]
    elif ff:
        pa = 12
    elif ff > 1:
        pb = 13
    else:
        jj = lambda kk: (ll := kk)
    def mm(nn):
        oo = nn

    class pp:
        qq = 1

    async def rr():
        async for ss in tt():
            uu = ss
        async with vv() as ww:
            xx = ww
    yy = {zz: 1 for zz in []}
    print(p, q, args, kw)


class K:
    x = 1
    y, z = 2, 3

    def method(self):
        return self

    for loop_name in range(2):
        loop_body = loop_name
    print(x)
'''


def _every_if(node: ast.If) -> bool:
    return True


def _bindings_kept(
    text: str, hot_every: int, opens: Callable[[ast.If], bool] | None = None
) -> None:
    """For each module-level function and class of `text`: its LibCST scope bindings are
    the same on its skeleton, every statement inside it that spans no hot line (its
    header, and every `hot_every`-th line when not 0) stood in (inside the `if`s `opens`
    opens), and no stand-in takes the line of a clause (`elif`, `else:`, ...)."""
    lines = split_lines(text)
    tree = ast.parse(text)
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        first, last = node.lineno, node.end_lineno or node.lineno
        if getattr(node, "decorator_list", None):
            continue
        body = "".join(lines[first - 1 : last])
        hot = [first]
        if hot_every:
            hot += list(range(first + hot_every, last + 1, hot_every))
        skeleton = cold_skeleton([node], lines, (first, last), body, hot, 0, opens)
        if skeleton is None:
            continue
        assert MARK in skeleton.body
        assert skeleton.body.count("\n") == body.count("\n")
        for was, now in zip(split_lines(body), split_lines(skeleton.body), strict=True):
            if MARK in now:
                assert not was.lstrip().startswith(_CLAUSES), (was, now)
        # The statements made for it are what a parse of it gives, positions included.
        parsed = ast.parse("\n" * (first - 1) + skeleton.body).body
        assert [ast.dump(statement, include_attributes=True) for statement in parsed] == [
            ast.dump(statement, include_attributes=True) for statement in skeleton.statements
        ]
        assert restored(skeleton.body, skeleton.stand_ins) == body
        original = cst.parse_module(body).body[0]
        stood = cst.parse_module(skeleton.body).body[0]
        # As the engine reads scopes: off the statements alone where no `:=` is written.
        for walrus in (True, False) if ":=" not in body else (True,):
            if isinstance(original, cst.FunctionDef):
                assert isinstance(stood, cst.FunctionDef)
                assert function_bindings(stood, walrus) == function_bindings(original, walrus)
            else:
                assert isinstance(original, cst.ClassDef) and isinstance(stood, cst.ClassDef)
                assert class_bindings(stood, walrus) == class_bindings(original, walrus)


_CLAUSES = ("elif", "else", "except", "finally", "case")


@pytest.mark.parametrize("opens", [None, _every_if])
@pytest.mark.parametrize("hot_every", [0, 2, 3])
def test_stand_ins_bind_what_the_statements_bound(
    hot_every: int, opens: Callable[[ast.If], bool] | None
) -> None:
    _bindings_kept(BINDINGS, hot_every, opens)


def test_what_a_statement_binds_in_its_scope() -> None:
    tree = ast.parse(BINDINGS)
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    names = {name for statement in function.body for name in scope_bindings([statement]) or ()}
    # Not `p` (a parameter), `hh` (a comprehension's), `kk`/`ll` (a lambda's), `nn`/`oo`
    # (a nested function's), `qq` (a class body's), `ss`/`uu`... (the nested `rr`'s).
    assert names == set(
        [
            "a",
            "b",
            "c",
            "d",
            "e",
            "g",
            "h",
            "o",
            "r",
            "s",
            "t",
            "u",
            "v",
            "w",
            "m",
            "n",
            "aa",
            "bb",
            "cc",
            "dd",
            "ee",
            "ff",
            "gg",
            "ii",
            "jj",
            "pa",
            "pb",
            "mm",
            "pp",
            "rr",
            "yy",
        ]
    )
    for unsure in ("import os", "from os import path", "global a", "nonlocal a"):
        assert scope_bindings(ast.parse(unsure).body) is None
    match = "match x:\n    case [y]:\n        pass\n"
    assert scope_bindings(ast.parse(match).body) is None


RUNS = """\
def f(x):
    a = 1
    # a comment between
    b = 2

    c = 3
    # cuda: a hot comment
    d = 4
    try:
        e = 5
    except ValueError:
        g = 6
        y = x.cuda()
        # deeper: LibCST keeps it in the handler's block
    # indented as the statement below: its stand-in takes it
    return x
"""


def test_a_run_of_cold_statements_in_a_block_is_one_stand_in() -> None:
    """Cold statements that follow one another in one block, with only blank lines and
    comments between them, become one stand-in binding all their names; a hot comment, a
    statement that stays, or a block's end ends the run. The comments right above a
    stand-in, indented as it is, are in it too."""
    lines = split_lines(RUNS)
    skeleton = cold_skeleton(ast.parse(RUNS).body, lines, (1, 16), RUNS, [1, 7, 13], 0)
    assert skeleton is not None
    replaced = [
        "".join(lines[start - 1 : end])
        for start, end in [(2, 6), (8, 8), (10, 10), (12, 12), (15, 16)]
    ]
    assert [old for _, old in skeleton.stand_ins] == replaced
    assert skeleton.stand_ins[0][0].startswith('    a = b = c = b"""\n')
    assert "# cuda: a hot comment" in skeleton.body and "# deeper" in skeleton.body
    assert restored(skeleton.body, skeleton.stand_ins) == RUNS
    parsed = ast.parse(skeleton.body).body
    assert [ast.dump(node, include_attributes=True) for node in parsed] == [
        ast.dump(node, include_attributes=True) for node in skeleton.statements
    ]


ACCELERATE = sorted(Path(accelerate.__file__).parent.rglob("*.py"))


@pytest.mark.parametrize("opens", [None, _every_if])
@pytest.mark.parametrize("hot_every", [0, 3])
def test_stand_ins_bind_what_real_code_bound(
    hot_every: int, opens: Callable[[ast.If], bool] | None
) -> None:
    """The same on every module-level function and class of accelerate's largest files."""
    largest = sorted(ACCELERATE, key=lambda path: path.stat().st_size)[-6:]
    for path in largest:
        _bindings_kept(path.read_text(encoding="utf-8"), hot_every, opens)


PADDING = "".join(
    f"    note_{n} = describe('a plain statement with no token, line {n}')\n" for n in range(12)
)

# The padding inside an `if` in a function.
INNER = PADDING.replace("    note", "        note")

SKELETAL = f"""\
import torch


def moved(x):
{PADDING}    for step in range(3):
        x = x + step
        print("nothing to migrate here", step)
    return x.cuda()


def shadowed(x):
{PADDING}    torch = make_backend()
    return torch.cuda.current_device()


def imported(x):
{PADDING}    import numpy as torch
    with open(x) as handle:
        from os import path
        size = describe("a long statement beside an import, with no token of its own")
    return torch.cuda.current_device()


def guarded(x):
{PADDING}    if torch.cuda.is_available():
        ext = CUDAExtension("kernels", ["kernels.cu"])
        helper = describe("a long statement inside the if, with no token of its own")
    return x


def plain(x, verbose):
    if torch.cuda.is_available():
        x = x.cuda()
{INNER}    elif verbose:
        describe("the other arm, with no token of its own", verbose, x)
    return x


def raising(x):
    if not torch.cuda.is_available():
{INNER}        raise RuntimeError("needs a GPU")
    return x.cuda()


def commented(x):
{PADDING}    for step in range(3):
        x = x + step
        # CUDA only: the rest of this function
    if torch.cuda.is_available():
        x = x.cuda()
    return x
"""


# Without NPU077, which is active wherever `device_regions` finds a region (it reports
# them) and is no `local` rule: the device rules alone then run on skeletons.
LOCAL_RULES = [rule for rule in RULES if rule.code != "NPU077"]


def _fast_is_full(text: str, rules: list[type[PythonRule]]) -> None:
    full = migrate_python(text, "skeletal.py", rules, NPU, RuleOptions(), full=True)
    fast = migrate_python(text, "skeletal.py", rules, NPU, RuleOptions(), full=False)
    assert fast.text == full.text
    assert fast.changes == full.changes
    assert fast.warnings == full.warnings


def test_the_fast_path_on_skeletons_gives_the_full_paths_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed = record_parses(monkeypatch)
    outcome = migrate_python(SKELETAL, "skeletal.py", LOCAL_RULES, NPU, RuleOptions(), full=False)
    by_function = {
        name: [code for code in parsed if f"def {name}(" in code]
        for name in ("moved", "shadowed", "imported", "guarded", "plain", "raising", "commented")
    }
    # Stood in: the padding and the loop; the edit lands in the text as it was.
    (moved,) = by_function["moved"]
    assert MARK in moved and "nothing to migrate here" not in moved
    assert "return x.npu()" in outcome.text
    assert 'print("nothing to migrate here", step)' in outcome.text
    # A local `torch` keeps its binding in its stand-in (the call is not the module's);
    # the padding before it and the assignment are one stand-in.
    (shadowed,) = by_function["shadowed"]
    assert re.search(r" torch = b\"\"\"\n", shadowed) and "make_backend" not in shadowed
    assert shadowed.count(MARK) == 1
    # An import is never stood in; nor is anything inside an `if` that holds a token
    # (its CUDA-only work keeps the chain on CUDA).
    (imported,) = by_function["imported"]
    assert MARK in imported and "import numpy as torch" in imported
    # A cold block that imports stays, but the statements beside its import do not.
    assert "from os import path" in imported and "beside an import" not in imported
    (guarded,) = by_function["guarded"]
    assert MARK in guarded and "a long statement inside the if" in guarded
    assert "torch.cuda.is_available()" in outcome.text.split("def guarded")[1]
    # Inside a chain decided by its tests alone (it tests CUDA, raises nothing and does
    # no CUDA-only work), the cold statements are stood in; inside one whose body
    # raises, nothing is (the raise may make it a CUDA-only guard).
    (plain,) = by_function["plain"]
    assert MARK in plain and "a plain statement" not in plain and "the other arm" not in plain
    assert "x = x.cuda()" in plain and "elif verbose:" in plain
    assert "x = x.npu()" in outcome.text.split("def plain")[1]
    (raising,) = by_function["raising"]
    assert "a plain statement" in raising
    # A loop whose block ends in a comment stays, the comment in it (a stand-in for the
    # loop would move the comment to the `if`); the statement inside it does not.
    (commented,) = by_function["commented"]
    assert "for step in range(3):" in commented and "# CUDA only" in commented
    assert "x = x + step" not in commented
    _fast_is_full(SKELETAL, LOCAL_RULES)
    _fast_is_full(SKELETAL, RULES)


def test_a_rule_that_reads_around_its_statements_gets_no_stand_ins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = (
        f"import torch\n\n\ndef predict(model, x):\n{PADDING}    y = model(x).half()\n"
        f"{PADDING}    return y.cpu().numpy()\n"
    )
    parsed = record_parses(monkeypatch)
    migrate_python(text, "predict.py", RULES, NPU, RuleOptions(), full=False)
    assert parsed and all(MARK not in code for code in parsed)
    _fast_is_full(text, RULES)


@pytest.mark.parametrize("fault", ["unparsable", "rewritten"])
def test_a_skeleton_that_fails_gives_way_to_the_text(
    monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    """A skeleton that does not parse, or whose stand-in a pass rewrote, is dropped with
    what its passes reported; the region is then parsed as it is."""
    from migrator.engine import python

    real = python.cold_skeleton
    tries: list[str] = []

    def faulty(*args: object, **kwargs: object) -> Skeleton | None:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        if found is None:
            return None
        tries.append(fault)
        if fault == "unparsable":
            return found._replace(body=found.body.replace("pass", "pass(", 1))
        return found._replace(stand_ins=(("# not in the code\n", ""),))

    monkeypatch.setattr(python, "cold_skeleton", faulty)
    fast = migrate_python(SKELETAL, "skeletal.py", LOCAL_RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(SKELETAL, "skeletal.py", LOCAL_RULES, NPU, RuleOptions(), full=True)
    assert tries
    assert fast.text == full.text and "return x.npu()" in fast.text
    assert fast.changes == full.changes
    assert fast.warnings == full.warnings


@pytest.mark.parametrize(
    ("after", "stood_in"),
    [
        ("    # at the loop's own indentation\n", True),
        ("        # in the loop's block\n", False),
        ("\t# a tab where the loop has spaces\n", False),
        ("\n", True),
    ],
)
def test_a_loop_followed_by_a_comment_deeper_than_it_stays(after: str, stood_in: bool) -> None:
    """LibCST keeps a comment indented at least as deep as a block in that block: the loop
    around it is stood in only where the comment would stay where it is; elsewhere the
    loop stays, and the statement inside it is stood in (the comment stays in its
    block)."""
    text = (
        f"def f(x):\n    for step in range(3):\n        x = x + step\n{after}    return x.cuda()\n"
    )
    lines = split_lines(text)
    (function,) = ast.parse(text).body
    hot = [1, len(lines)]
    skeleton = cold_skeleton([function], lines, (1, len(lines)), text, hot, 0)
    assert skeleton is not None and after in skeleton.body
    assert ("for step" not in skeleton.body) is stood_in
    assert "x + step" not in skeleton.body


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_statement_over_several_lines_is_stood_in_by_one_token(
    monkeypatch: pytest.MonkeyPatch, ending: str
) -> None:
    """A cold statement over several lines becomes one bytes string over the same lines
    (assigned to what it binds): LibCST parses it as one statement, with none of the
    blank or comment lines a line-by-line stand-in gave it, and the migration over the
    skeleton gives the full path's output, in either line ending."""
    text = (
        "import torch\n\n\ndef build(x):\n    table = dict(\n        a=1,\n        b=2,\n    )\n"
        "    x = x.cuda()\n    log(\n"
        + "        'no token on this line',\n"
        * 30
        + "        x,\n    )\n"
        "    return x.cuda(), table\n"
    ).replace("\n", ending)
    lines = split_lines(text)
    function = ast.parse(text).body[1]
    assert isinstance(function, ast.FunctionDef)
    body = "".join(lines[3:])
    hot = [4, 9, len(lines)]
    skeleton = cold_skeleton([function], lines, (4, len(lines)), body, hot, 0)
    assert skeleton is not None
    assert skeleton.body.count(ending) == body.count(ending)
    assert skeleton.body.count('b"""') == 2 and "#1" not in skeleton.body
    stood = cst.parse_module(skeleton.body).body[0]
    assert isinstance(stood, cst.FunctionDef) and isinstance(stood.body, cst.IndentedBlock)
    statements = stood.body.body
    assert len(statements) == 4
    assert all(not statement.leading_lines for statement in statements)
    assert restored(skeleton.body, skeleton.stand_ins) == body
    parsed = record_parses(monkeypatch)
    fast = migrate_python(text, "build.py", RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(text, "build.py", RULES, NPU, RuleOptions(), full=True)
    assert fast.text == full.text == text.replace("x.cuda()", "x.npu()")
    assert fast.findings == full.findings
    assert any('b"""' in code for code in parsed[:-1])  # the fast path parsed a skeleton


def test_a_name_written_in_fullwidth_letters_is_not_stood_in_folded() -> None:
    """The stdlib parser folds `torch` written with a fullwidth `t` (U+FF54) to `torch`;
    LibCST's scopes keep it as written. A
    stand-in binding the folded name would shadow the import of torch that the function
    then uses, which the full path rewrites: such a statement stays."""
    text = (
        "import torch\n\n\ndef f(x):\n    \uff54orch = make(\n        x,\n    )\n"
        + "".join(f"    v{n} = x + {n}\n" for n in range(40))
        + "    torch.cuda.synchronize()\n    return \uff54orch\n"
    )
    lines = split_lines(text)
    function = ast.parse(text).body[1]
    skeleton = cold_skeleton([function], lines, (4, len(lines)), "".join(lines[3:]), [4, 46], 0)
    assert skeleton is not None and "\uff54orch = make(" in skeleton.body
    fast = migrate_python(text, "fold.py", RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(text, "fold.py", RULES, NPU, RuleOptions(), full=True)
    assert fast.text == full.text == text.replace("torch.cuda.sync", "torch.npu.sync")
    assert fast.findings == full.findings


def test_without_a_walrus_the_bindings_are_read_off_the_targets_alone() -> None:
    """`scope_bindings(..., walrus=False)` gives what the full walk gives, in order, for
    every statement of accelerate's largest files and their nested blocks that holds no
    `:=`."""
    checked = 0
    for path in sorted(ACCELERATE, key=lambda path: path.stat().st_size)[-8:]:
        text = path.read_text(encoding="utf-8")
        if ":=" in text:
            continue
        for node in ast.walk(ast.parse(text)):
            for block in ("body", "orelse", "finalbody"):
                held = getattr(node, block, None)
                for statement in held if isinstance(held, list) else ():
                    if isinstance(statement, ast.stmt):
                        checked += 1
                        assert scope_bindings([statement], walrus=False) == scope_bindings(
                            [statement]
                        )
    assert checked > 2000
    sample = ast.parse(
        "with a() as (b, c), d():\n    e = f[g] = h\nfor i, *j in k:\n    l += 1\n"
        "try:\n    pass\nexcept E as m:\n    n: int\nx[[o for o in p]] = lambda q: q\n"
    ).body
    assert scope_bindings(sample, walrus=False) == scope_bindings(sample)
    assert scope_bindings(sample) == ["b", "c", "e", "i", "j", "l", "m", "n"]


BACKENDS = f"""\
import torch
import torch.distributed as dist


def setup(rank):
{PADDING}    dist.init_process_group("nccl", rank=rank)
    if dist.get_backend() == "nccl":
        describe("a long statement inside the if, with no token of its own")
    use_bf16 = torch.cuda.get_device_capability() >= (8, 0)
{PADDING}    return use_bf16
"""


def test_backend_and_capability_rules_run_on_skeletons(monkeypatch: pytest.MonkeyPatch) -> None:
    """NPU016 (nccl-backend) and NPU018 (cuda-capability-gate) decide from the statement
    holding their token: a function where they act is parsed with its cold statements
    stood in, and gives the full path's output."""
    rules = [rule for rule in LOCAL_RULES if rule.code in ("NPU016", "NPU018")]
    assert len(rules) == 2 and all(rule.trigger.local for rule in rules)
    parsed = record_parses(monkeypatch)
    outcome = migrate_python(BACKENDS, "backends.py", rules, NPU, RuleOptions(), full=False)
    (setup,) = [code for code in parsed if "def setup(" in code]
    assert MARK in setup and "a plain statement" not in setup
    assert 'dist.init_process_group("hccl", rank=rank)' in outcome.text
    assert 'dist.get_backend() == "hccl"' in outcome.text
    assert 'hasattr(torch, "npu") or torch.cuda.get_device_capability()' in outcome.text
    _fast_is_full(BACKENDS, rules)


def test_a_block_followed_by_a_comment_and_a_deeper_line_of_spaces_stays() -> None:
    """LibCST keeps a comment after a block in that block where a line of spaces indented
    deeper follows it: the loop before them is not stood in (its stand-in handed the
    comment to the `if`, whose leading comment says it is CUDA-only, and the fast path
    left the gate that the full path answers), and no stand-in takes them."""
    text = (
        f"import torch\n\n\ndef pick(x):\n{PADDING}    for step in range(3):\n"
        "        x = x + step\n    # bf16 kernels: CUDA only\n        \n"
        "    if torch.cuda.get_device_capability()[0] >= 8:\n        x = x.bfloat16()\n"
        "    return x\n"
    )
    lines = split_lines(text)
    function = ast.parse(text).body[1]
    assert isinstance(function, ast.FunctionDef)
    hot = [4, lines.index("    if torch.cuda.get_device_capability()[0] >= 8:\n") + 1]
    skeleton = cold_skeleton([function], lines, (4, len(lines)), "".join(lines[3:]), hot, 0)
    assert skeleton is not None
    assert "for step in range(3):" in skeleton.body
    assert "    # bf16 kernels: CUDA only\n        \n" in skeleton.body
    rules = [rule for rule in LOCAL_RULES if rule.code == "NPU018"]
    _fast_is_full(text, rules)
    outcome = migrate_python(text, "pick.py", rules, NPU, RuleOptions(), full=False)
    assert 'if hasattr(torch, "npu") or torch.cuda.get_device_capability()' in outcome.text
