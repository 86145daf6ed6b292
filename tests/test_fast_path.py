"""The fast path can never drop a change: on a whole real corpus (the installed accelerate
package, a CUDA-aware training library) it gives exactly the full LibCST path's output,
edits and warnings, file by file."""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import accelerate
import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from migrator.analysis.positions import code_positions
from migrator.contract.rule import Example, PythonRule, RuleOptions
from migrator.contract.trigger import Trigger
from migrator.core.target import NPU
from migrator.engine import registry
from migrator.engine.python import find_regions, migrate_python
from migrator.formats.sources import SourceError, decode_python
from tests.helpers import record_parses

CORPUS = Path(accelerate.__file__).parent
FILES = sorted(CORPUS.rglob("*.py"))
RULES = [
    rule
    for rule in registry.load().for_profile(registry.load().profile("generic"))  # type: ignore[arg-type]
    if issubclass(rule, PythonRule)
]


def test_corpus_is_real_and_relevant() -> None:
    assert len(FILES) > 50
    assert sum("cuda" in file.read_text(encoding="utf-8") for file in FILES) > 10


@pytest.mark.parametrize("file", FILES, ids=[str(f.relative_to(CORPUS)) for f in FILES])
def test_fast_path_equals_full_path(file: Path) -> None:
    text = decode_python(file.read_bytes()).text
    rel = file.relative_to(CORPUS).as_posix()
    try:
        full = migrate_python(text, rel, RULES, NPU, RuleOptions(), full=True)
    except SourceError:
        pytest.skip("not parseable with this Python's grammar")
    fast = migrate_python(text, rel, RULES, NPU, RuleOptions(), full=False)
    assert fast.text == full.text
    assert fast.changes == full.changes
    assert fast.warnings == full.warnings


NESTED = '''\
import torch


class Suite:
    """Tests on "cuda"."""

    class Base(object):
        devices = ["cpu"]

        def test_device(self):
            return torch.zeros(1, device="cuda")

        class Inner:
            @staticmethod
            def helper(x):
                return x.cuda()

    def test_top(self):
        torch.cuda.synchronize()
'''


def test_methods_of_nested_classes_are_their_own_regions() -> None:
    tree = ast.parse(NESTED)
    lines = NESTED.splitlines(keepends=True)
    hot = [number for number, line in enumerate(lines, 1) if "cuda" in line]
    regions = find_regions(tree, hot, lines)
    assert [(r.first, r.last, r.header) for r in regions] == [
        (10, 11, "class Suite:\n    class Base:\n"),
        (14, 16, "class Suite:\n    class Base:\n        class Inner:\n"),
        (18, 19, "class Suite:\n"),
    ]


def _fast_changes_as_full(text: str, path: str) -> None:
    """Both engine paths change `text`, and the same way."""
    full = migrate_python(text, path, RULES, NPU, RuleOptions(), full=True)
    fast = migrate_python(text, path, RULES, NPU, RuleOptions(), full=False)
    assert fast.text != text
    assert (fast.text, fast.changes, fast.warnings) == (full.text, full.changes, full.warnings)


def test_nested_class_regions_give_the_full_paths_output() -> None:
    _fast_changes_as_full(NESTED, "suite.py")


MEMBERS = """\
import torch
from flash_attn import is_flash_attn_2_available


class Plain:
    is_cuda: bool = False
    device = "cuda"

    def run(self, x):
        return torch.zeros(1, device=self.device).cuda()

    def idle(self):
        return 1


class Flag:
    HAS_FA = is_flash_attn_2_available()

    def run(self):
        if self.HAS_FA:
            from flash_attn import flash_attn_func
        return torch.cuda.current_device()


class Sibling:
    kind = "cuda"
    label = kind + ":0"

    def run(self):
        return torch.cuda.synchronize()


class Alias:
    def forward(self):
        return torch.cuda.current_device()

    forward_cuda = forward
"""


def _member_regions(text: str) -> list[tuple[int, int, str]]:
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    hot = [number for number, line in enumerate(lines, 1) if "cuda" in line or "HAS_FA" in line]
    return [(r.first, r.last, r.header) for r in find_regions(tree, hot, lines)]


def test_class_level_statements_are_regions_when_they_share_no_name() -> None:
    regions = _member_regions(MEMBERS)
    # Plain data, whose name a method reads as `self.device`: each hot member alone.
    assert (6, 6, "class Plain:\n") in regions
    assert (7, 7, "class Plain:\n") in regions
    assert (9, 10, "class Plain:\n") in regions
    # A flag a method tests as `self.HAS_FA` (code, not data), a statement whose name a
    # sibling statement reads, one assigned where the class binds `forward`: whole.
    assert (16, 22, "") in regions
    assert (25, 30, "") in regions
    assert (33, 37, "") in regions


def test_class_level_statement_regions_give_the_full_paths_output() -> None:
    _fast_changes_as_full(MEMBERS, "members.py")


HEADERS = """\
import torch


class CUDAGraphRunner:
    def run(self):
        return torch.cuda.current_device()

    def idle(self):
        return 1


class Scaler(torch.cuda.amp.GradScaler):
    def run(self):
        return torch.cuda.current_device()
"""


def test_a_class_named_like_a_token_is_split_as_one_with_a_cold_header(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    parsed = record_parses(monkeypatch)
    migrate_python(HEADERS, "headers.py", RULES, NPU, RuleOptions(), full=False)
    # The method with a token alone, in a stand-in of its class; a class whose bases
    # hold a token, whole.
    assert any(code.startswith("class CUDAGraphRunner:\n    def run(self):\n") for code in parsed)
    assert not any("def idle" in code for code in parsed)
    assert any(code.startswith("class Scaler(torch.cuda.amp.GradScaler):") for code in parsed)
    _fast_changes_as_full(HEADERS, "headers.py")


def test_positions_match_libcsts_metadata_wrapper() -> None:
    module = cst.parse_module(NESTED.replace("\n", "\r\n", 3))
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert dict(code_positions(module)) == {
        node: (where.start.line, where.start.column, where.end.line, where.end.column)
        for node, where in expected.items()
    }


def _aliased_spellings() -> list[tuple[type[PythonRule], str]]:
    """Each rule's dotted tokens (`decord.nd.gpu`) spelt through a name an import binds to
    a module prefix: `import decord as m` then `m.nd.gpu()`, `from decord import nd as m`
    then `x = m.gpu`; the file never spells the token."""
    cases = []
    for rule in RULES:
        for token in rule.trigger.tokens:
            parts = token.split(".")
            if len(parts) < 2 or not all(part.isidentifier() for part in parts):
                continue
            for cut in range(1, len(parts)):
                prefix, rest = ".".join(parts[:cut]), ".".join(parts[cut:])
                imports = [f"import {prefix} as m"]
                if cut >= 2:
                    imports.append(
                        f"from {'.'.join(parts[: cut - 1])} import {parts[cut - 1]} as m"
                    )
                for line in imports:
                    for use in (f"m.{rest}()", f"x = m.{rest}"):
                        text = f"import torch\n{line}\n\n\ndef f(x):\n    {use}\n    return x\n"
                        cases.append((rule, text))
    return cases


def test_tokens_spelt_through_module_aliases_take_the_fast_path_as_the_full() -> None:
    cases = _aliased_spellings()
    assert len(cases) > 40
    acting = 0
    for rule, text in cases:
        fast = migrate_python(text, "m.py", [rule], NPU, RuleOptions())
        full = migrate_python(text, "m.py", [rule], NPU, RuleOptions(), full=True)
        assert (fast.text, fast.findings) == (full.text, full.findings), (rule.code, text)
        acting += bool(full.findings)
    # Cases where the rule acts, which a pre-filter without aliases skipped.
    assert acting >= 8


def test_the_token_search_finds_what_looking_for_each_token_finds() -> None:
    from migrator.contract.trigger import _MANY_TOKENS

    rules = [rule for rule in RULES if rule.trigger.tokens]
    assert any(len(rule.trigger.tokens) >= _MANY_TOKENS for rule in rules)
    for rule in rules:
        tokens = rule.trigger.tokens
        # Each token alone, inside a longer word, cut short by one character, and none.
        texts = ["", "x = 1\n"]
        for token in tokens:
            texts += [f"a = {token}\n", f"_{token}_x", token[:-1]]
        search = rule.trigger._search
        for text in texts:
            assert search.holds_token(text) is any(token in text for token in tokens), (
                rule.code,
                text,
            )


TF32_SETTINGS = """\
import torch as th
from torch.backends.cuda import matmul as mm
from torch import set_float32_matmul_precision as precision

mm.fp32_precision = "tf32"
th.backends.cudnn.conv.fp32_precision = "ieee"
th.backends.mkldnn.matmul.fp32_precision = "tf32"
precision("high")
NAMES = ["torch.set_float32_matmul_precision", "fp32_precision"]
"""


def test_tf32_settings_through_aliases_pass_the_names_gate() -> None:
    # NPU020 acts only at the names its gate lists, spelt here through three aliases; the
    # mkldnn setting and the table of names hold its tokens and nothing it acts on.
    _fast_changes_as_full(TF32_SETTINGS, "tf32.py")
    fast = migrate_python(TF32_SETTINGS, "tf32.py", RULES, NPU, RuleOptions())
    assert [f.code for f in (*fast.changes, *fast.warnings)].count("NPU020") == 3


CUDNN_SWITCHES = """\
import torch.backends.cudnn
from torch.backends import cudnn as cd

cd.benchmark = True
if torch.backends.cudnn.is_available():
    pass
PARAMS = [dict(module_name="Conv2d", cudnn=True), {"cudnn": False}]
"""


def test_cudnn_switches_through_aliases_pass_the_names_gate() -> None:
    # NPU015 reports members of torch.backends.cudnn only; the test table's keys and
    # keywords hold its token and nothing it reports.
    full = migrate_python(CUDNN_SWITCHES, "c.py", RULES, NPU, RuleOptions(), full=True)
    fast = migrate_python(CUDNN_SWITCHES, "c.py", RULES, NPU, RuleOptions())
    assert (fast.text, fast.changes, fast.warnings) == (full.text, full.changes, full.warnings)
    assert [f.line for f in fast.warnings if f.code == "NPU015"] == [4, 5]


def _display(head: str, hot: list[str], tail: str = "]\n", cold: int = 80) -> str:
    """A module-level display of more than 4 kB: `cold` elements no rule acts on, with the
    `hot` ones spread among them."""
    rows = [f'    Op("plain{n}", dtypes=(1, 2, 3), ref=reference_{n}),\n' for n in range(cold)]
    for number, row in enumerate(hot):
        rows.insert((number + 1) * cold // (len(hot) + 1), row)
    return f"{head}{''.join(rows)}{tail}"


SYNC = '    Op(\n        "sync",\n        op=lambda: torch.cuda.synchronize(),\n    ),  # sync\n'
DISPLAYS = (
    "import torch\n\n"
    + _display(
        "OPS: list[Op] = [  # the table\n",
        [
            '    Op("to", op=lambda x: x.to("cuda")),\n',
            SYNC,
            "    Op(\"move\", op=lambda x: x.cuda(), devices=('cuda',)),\n",
        ],
    )
    + "\n"
    # The target's name makes every device string of the display a setting (NPU010).
    + _display("DEVICES = [\n", ['    "cuda",\n', '    "cuda:1",\n'])
    + "\nSETTINGS = {\n"
    + "".join(f'    "key{n}": {n},\n' for n in range(300))
    + '    "device": "cuda",\n    "other": x.cuda(),\n}\n'
)


def test_a_large_displays_hot_elements_are_parsed_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = record_parses(monkeypatch)
    _fast_changes_as_full(DISPLAYS, "ops.py")
    fast = migrate_python(DISPLAYS, "ops.py", RULES, NPU, RuleOptions())
    assert '\n    "npu",\n' in fast.text and '\n    "npu:1",\n' in fast.text
    assert '"device": "npu",' in fast.text
    # Each hot element in the statement's own lines around it, and no cold element.
    stand_ins = [code for code in parsed if code.startswith(("OPS", "DEVICES", "SETTINGS"))]
    assert len(stand_ins) == 2 * (3 + 2 + 2)
    assert not any("plain" in code or '"key' in code for code in stand_ins)
    assert stand_ins[1] == f"OPS: list[Op] = [  # the table\n{SYNC}]\n"


@pytest.mark.parametrize(
    "text",
    [
        # A token outside the elements (the target), two elements on a line, a tuple
        # target, a tuple's last element without its comma, a `**mapping` item, an
        # element or a dict value in parentheses on lines of their own (outside the
        # stdlib node's lines).
        _display('TABLES["cuda"] = [\n', ["    x.cuda(),\n"]),
        _display("OPS = [\n", ["    x.cuda(), y,\n"]),
        _display("A, B = [\n", ['    "cuda",\n']),
        _display("OPS = (\n", ["    x.cuda()\n"], tail=")\n", cold=0) + " " * 4096 + "\n",
        "OPS = {\n" + "".join(f'    "k{n}": {n},\n' for n in range(300)) + "    **x.cuda(),\n}\n",
        _display("DEVICES = [\n", ['    (\n        "cuda"\n    ),\n']),
        "OPS = {\n"
        + "".join(f'    "k{n}": {n},\n' for n in range(300))
        + '    "move": (\n        lambda x: x.cuda()\n    ),\n}\n',
    ],
)
def test_a_display_is_not_split_where_an_element_is_not_alone_on_its_lines(text: str) -> None:
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    hot = [number for number, line in enumerate(lines, 1) if "cuda" in line]
    regions = find_regions(tree, hot, lines)
    assert regions and not any(region.elements for region in regions)


def test_parenthesized_elements_on_lines_of_their_own_migrate_as_on_the_full_path() -> None:
    # Split, the dict's stand-in lost its `),` line and did not parse; the list's
    # finding lost the parentheses from its message.
    for text in (
        _display("DEVICES = [\n", ['    (\n        "cuda"\n    ),\n']),
        "OPS = {\n"
        + "".join(f'    "k{n}": {n},\n' for n in range(300))
        + '    "move": (\n        lambda x: x.cuda()\n    ),\n}\n',
    ):
        _fast_changes_as_full(text, "table.py")
        fast = migrate_python(text, "table.py", RULES, NPU, RuleOptions())
        full = migrate_python(text, "table.py", RULES, NPU, RuleOptions(), full=True)
        assert fast.findings == full.findings


def test_a_file_whose_lines_end_in_a_lone_cr_migrates_as_on_the_full_path() -> None:
    # `re` reads such a file as one line: a `^`-led pattern's match started on the
    # function's first line, its statement was judged cold, and the edit was lost.
    text = (
        'import torch\r\r\rdef main():\r    x = torch.zeros(1, device="cuda")\r\r\r'
        'if __name__ == "__main__":\r    main()\r'
    )
    fast = migrate_python(text, "train.py", RULES, NPU, RuleOptions())
    full = migrate_python(text, "train.py", RULES, NPU, RuleOptions(), full=True)
    assert 'device="npu")\r' in fast.text
    assert (fast.text, fast.findings) == (full.text, full.findings)


@pytest.mark.parametrize("full", [False, True])
def test_a_lone_cr_files_last_line_keeps_its_ending_edited_or_not(full: bool) -> None:
    # LibCST reads a last line ending in a lone "\r" as one without a line ending, and
    # generated the file without it: an edited file lost it, and so did one a rule's
    # tokens brought to LibCST that no rule edited (shown as a change of one byte).
    edited = "import torch\rx = torch.ones(1).cuda()\r"
    untouched = 'import torch\rx = torch.ones(1)\rprint("cuda")\r'
    done = migrate_python(edited, "m.py", RULES, NPU, RuleOptions(), full=full)
    assert done.text == "import torch\rx = torch.ones(1).npu()\r"
    same = migrate_python(untouched, "m.py", RULES, NPU, RuleOptions(), full=full)
    assert same.text == untouched


def test_a_migrated_file_leaves_no_cycle_holding_its_trees() -> None:
    # A file's trees must go by reference count when it is done: held in a cycle, they
    # were walked by every young collection until the collector freed them (on
    # diffusers, 2.5 million objects and 15% of the run).
    before = gc.get_debug()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        migrate_python(DISPLAYS, "ops.py", RULES, NPU, RuleOptions())
        gc.collect()
        held = [item for item in gc.garbage if isinstance(item, (ast.AST, cst.CSTNode))]
    finally:
        gc.set_debug(before)
        gc.garbage.clear()
    assert held == []


def test_a_display_goes_whole_where_a_rule_that_reads_the_display_acts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # NPU061 reads an argv list as a whole (`["nvidia-smi", "-L"]`): no Trigger.elements.
    text = "import subprocess\n\n" + _display(
        "COMMANDS = [\n", ['    ["nvidia-smi", "-L"],\n', '    ("ls", x.cuda()),\n']
    )
    parsed = record_parses(monkeypatch)
    _fast_changes_as_full(text, "commands.py")
    assert any(code.startswith("COMMANDS") and "plain7" in code for code in parsed)


class _RenamesTable(PythonRule):
    """Renames the table an element is in, which `Trigger.elements` says no rule does.
    Why: the engine must then migrate the statement whole."""

    code = "TST010"
    action = "port-code"
    name = "renames-table"
    summary = "Renames OPS (test rule)."
    trigger = Trigger(tokens=("cuda",), elements=True)
    examples = (Example("OPS = [x.cuda()]\n", "NPU_OPS = [x.cuda()]\n"),)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if original_node.value != "OPS":
            return updated_node
        replacement = updated_node.with_changes(value="NPU_OPS")
        return self.edit(original_node, updated_node, replacement, "OPS -> NPU_OPS")


def test_a_stand_in_a_pass_rewrites_sends_the_statement_whole() -> None:
    text = _display("OPS = [\n", ["    x.cuda(),\n", "    y.cuda(),\n"])
    fast = migrate_python(text, "ops.py", [_RenamesTable], NPU, RuleOptions())
    full = migrate_python(text, "ops.py", [_RenamesTable], NPU, RuleOptions(), full=True)
    assert fast.text.startswith("NPU_OPS = [\n")
    assert (fast.text, fast.findings) == (full.text, full.findings)
    assert len(fast.changes) == 1


def test_display_elements_that_gain_lines_keep_the_later_whole_module_passes_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # NPU004 adds a line to an element; the entry script's whole-module passes (NPU030,
    # NPU090) run after, on lines mapped through the element's change.
    adamw = "    torch.optim.AdamW(\n        params,\n        lr=1e-3,\n    ),\n"
    text = (
        "import torch\n\n"
        + _display("OPTIMIZERS = [\n", [adamw, '    Op(x.to("cuda")),\n'])
        + '\n\ndef main():\n    x = torch.zeros(1, device="cuda")\n\n\n'
        + 'if __name__ == "__main__":\n    main()\n'
    )
    parsed = record_parses(monkeypatch)
    _fast_changes_as_full(text, "train.py")
    assert any(code.startswith(f"OPTIMIZERS = [\n{adamw}]") for code in parsed)
    fast = migrate_python(text, "train.py", RULES, NPU, RuleOptions())
    codes = {finding.code for finding in fast.findings}
    assert {"NPU004", "NPU010", "NPU030"} <= codes
    assert fast.text.count("\n") > text.count("\n")


FLAGS = """import torch

HAS_TRITON = is_triton_available()


def probe():
    has_xformers = is_xformers_available()
    return has_xformers


def build():
    if HAS_TRITON:
        import triton
    if has_xformers:
        import xformers
    import flash_attn
"""


def test_availability_flags_assigned_by_other_statements_guard_imports_on_both_paths() -> None:
    # The fast path walks the import rules only through the statements that spell their
    # modules: the flags come from the whole file (`availability_flags`), else a flag
    # assigned at module level or in another function guarded only on the full path.
    full = migrate_python(FLAGS, "flags.py", RULES, NPU, RuleOptions(), full=True)
    fast = migrate_python(FLAGS, "flags.py", RULES, NPU, RuleOptions(), full=False)
    assert [(w.code, w.line) for w in full.warnings] == [("NPU050", 16)]
    assert (fast.text, fast.warnings) == (full.text, full.warnings)


def test_availability_flags_are_the_names_assigned_an_availability_tests_call() -> None:
    from migrator.contract.unsupported import availability_flags

    text = (
        "a = b = utils.is_apex_available()\n"
        "c = probe(is_x_available=True)\n"  # the test is an argument, not the callee
        "d: bool = is_x_available()\n"  # an annotated assignment is not read
        "e = (lambda is_y_available: is_y_available)(1)\n"
        "f = TYPE_CHECKING\n"  # not a call
    )
    assert availability_flags(ast.parse(text), text) == {"a", "b", "e"}
    # Inside a class's method, and in a text with a character outside ASCII.
    nested = "class M:\n    def f(self):\n        # é\n        ok = is_z_available()\n"
    assert availability_flags(ast.parse(nested), nested) == {"ok"}
    ascii_only = nested.replace("é", "e")
    assert availability_flags(ast.parse(ascii_only), ascii_only) == {"ok"}
    plain = "a = check()\n"
    assert availability_flags(ast.parse(plain), plain) == frozenset()


def test_the_engines_parse_skips_validation_and_gives_libcsts_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from migrator.engine.python import parse_cst

    for file in FILES[:40]:
        text = file.read_text(encoding="utf-8")
        mine = parse_cst(text)
        assert mine.deep_equals(cst.parse_module(text)), file
        assert mine.code == text
    validated: list[str] = []
    check = cst.Name._validate

    def counted(node: cst.Name) -> None:
        validated.append(node.value)
        check(node)

    monkeypatch.setattr(cst.Name, "_validate", counted)
    parse_cst("x = y\n")
    assert validated == []
    cst.parse_module("x = y\n")
    assert sorted(validated) == ["x", "y"]
    # Validation is LibCST's own again once the parse returns, and after a failed parse.
    with pytest.raises(SourceError):
        parse_cst("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")


CAPITALISED = """import torch
from transformers.utils import is_torch_npu_available


def pick(x, y):
    x = x.cuda()
    if is_torch_npu_available():
        y = y.npu()
    else:
        raise RuntimeError("Cuda only")
    return x, y
"""


def test_a_chain_that_spells_the_device_capitalised_is_reported_on_both_paths() -> None:
    # NPU077 is walked only through the statements that hold its tokens: "Cuda" is one,
    # as `mentions_source` reads the chain in any case.
    full = migrate_python(CAPITALISED, "pick.py", RULES, NPU, RuleOptions(), full=True)
    fast = migrate_python(CAPITALISED, "pick.py", RULES, NPU, RuleOptions(), full=False)
    assert ("NPU077", 7) in [(w.code, w.line) for w in full.warnings]
    assert (fast.text, fast.warnings) == (full.text, full.warnings)


def _through_by_definition(rule: type[PythonRule], value: str) -> tuple[bool, tuple[str, ...]]:
    """What `_through` means: a token inside `value`, and the rest of each dotted token
    after a head that is `value`, read token by token; where the trigger names what an
    alias must lead to (`through`), only a dotted name from which some qualified name
    (it, or it with more names after a dot) is one of them or lies under one."""
    through = rule.trigger.through

    def leads(name: str) -> bool:
        if through is None:
            return True
        for wanted in through:
            made = [name, *(name + "." + ".".join(wanted.split(".")[k:]) for k in range(1, 9))]
            if any(m == wanted or m.startswith(wanted + ".") for m in made):
                return True
        return False

    rests = []
    for token in rule.trigger.tokens:
        parts = token.split(".")
        rests += [
            ".".join(parts[i:])
            for i in range(1, len(parts))
            if ".".join(parts[:i]) == value and leads(token)
        ]
    whole = any(token in value for token in rule.trigger.tokens) and leads(value)
    return whole, tuple(rests)


def test_an_imports_name_is_read_against_every_rules_tokens_as_defined() -> None:
    from migrator.engine.python import _MANY_TOKENS, _through

    rules = RULES
    # Both ways of finding a token in a name are taken.
    assert {len(rule.trigger.tokens) > _MANY_TOKENS for rule in rules} == {True, False}
    values = {"", "x", "torch", "numpy", "torch.nn.functional", "apex.amp", "triton.language"}
    values |= {"triton", "triton.jit", "triton.jit.x", "triton.jitter", "flash_attn.x"}
    # Some triggers name what an alias must lead to, and some aliases lead elsewhere.
    assert any(rule.trigger.through for rule in rules)
    for rule in rules:
        for token in rule.trigger.tokens:
            parts = token.split(".")
            values.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
            values.add(f"pkg.{token}.sub")
    for rule in rules:
        for value in sorted(values):
            assert _through(rule, value) == _through_by_definition(rule, value), (rule.code, value)


KERNELS = """\
import triton
import triton.language as tl
import triton as tr
from triton import jit as J


def helper(x_ptr, n):
    offsets = tl.arange(0, n)
    values = tl.load(x_ptr + offsets)
    return tl.sum(values, axis=0)


@triton.jit
def kernel(x_ptr, n):
    offsets = tl.arange(0, n)
    first = tl.load(x_ptr + offsets) * 2
    second = tl.load(x_ptr + offsets + n) * 3
    third = tl.where(first > second, first, second)
    fourth = tl.maximum(third, tl.zeros_like(third))
    fifth = tl.minimum(fourth, tl.full_like(fourth, 6.0))
    sixth = tl.load(x_ptr + offsets + 2 * n) * tl.load(x_ptr + offsets + 3 * n)
    seventh = tl.load(x_ptr + offsets + 4 * n) - tl.load(x_ptr + offsets + 5 * n)
    tl.store(x_ptr + offsets, fifth + sixth + seventh + tl.sum(first, axis=0))


@J
def aliased(x_ptr):
    tl.store(x_ptr, 1)


@tr.autotune(configs=[], key=["n"])
@tr.jit
def tuned(x_ptr, n):
    tl.store(x_ptr, tl.load(x_ptr))
"""


def test_an_alias_that_leads_to_nothing_a_rule_reports_brings_no_lines_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """NPU051 reports imports of triton and `triton.jit` / `autotune` / `heuristics`: `tl`
    (`triton.language`) leads to none of them, so a kernel's `tl.*` lines are stood in and
    a function that only says `tl` is not parsed, while the decorators spelt through
    `tr` and `J` are still reported, as on the full path."""
    from migrator.engine.python import _through

    triton_rule = next(rule for rule in RULES if rule.code == "NPU051")
    assert _through(triton_rule, "triton.language") == (False, ())
    assert _through(triton_rule, "triton")[0] and _through(triton_rule, "triton.jit")[0]
    parsed = record_parses(monkeypatch)
    fast = migrate_python(KERNELS, "kernels.py", RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(KERNELS, "kernels.py", RULES, NPU, RuleOptions(), full=True)
    assert fast.text == full.text == KERNELS
    assert fast.findings == full.findings
    reported = [f.line for f in fast.findings if f.code == "NPU051"]
    assert reported == [1, 2, 3, 4, 13, 26, 31]
    fast_parses = parsed[: len(parsed) - 1]  # the full path's one parse comes last
    assert not any("def helper" in code for code in fast_parses)
    (kernel,) = [code for code in fast_parses if code.startswith("@triton.jit\ndef kernel")]
    assert "tl." not in kernel


# A table inside a function keyed by operators that name, without calling, what NPU080,
# NPU093 and NPU012 act on (torch's `overrides.py` holds one of 1,400 lines).
OPERATOR_TABLE = (
    "import torch\nimport torch.nn.functional as F\nfrom torch import Tensor\n\n\n"
    "def overrides():\n    found = dict(torch.__dict__)\n    table = {\n"
    + "".join(f"        torch.op{n}: lambda x, y: -1,\n" for n in range(40))
    + "        torch.hypot: lambda x, y: -1,\n"
    "        F.scaled_dot_product_attention: lambda q, k, v: -1,\n"
    "        Tensor.cuda: lambda self, device=None: -1,\n"
    "    }\n    return found, table\n"
)


@pytest.mark.parametrize("value", ["-1", "torch.hypot(x, y)"])
def test_a_table_that_names_operators_without_calling_them_is_not_parsed(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    """NPU080 and NPU093 report calls (and NPU093 imports and decorators) and NPU012 names
    under `torch.cuda`: a table that only names `torch.hypot`, `F.scaled_dot_product_attention`
    and `Tensor.cuda` is parsed for none of them, and is as soon as one value calls."""
    hypot = "        torch.hypot: lambda x, y: -1,\n"
    text = OPERATOR_TABLE.replace(hypot, hypot.replace("-1", value))
    parsed = record_parses(monkeypatch)
    fast = migrate_python(text, "overrides.py", RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(text, "overrides.py", RULES, NPU, RuleOptions(), full=True)
    assert fast.text == full.text == text
    assert fast.findings == full.findings
    fast_parses = parsed[: len(parsed) - 1]  # the full path's one parse comes last
    reported = [f.code for f in fast.findings]
    if value == "-1":
        assert reported == []
        assert not any("lambda" in code for code in fast_parses)
    else:
        assert reported == ["NPU080"]
        assert any("torch.hypot(x, y)" in code for code in fast_parses)


def test_a_stream_handle_is_renamed_where_the_file_names_nothing_under_torch_cuda() -> None:
    """NPU012's names gate lets a region through where the file spells `.cuda_stream`,
    which it renames on any receiver (no qualified name leads there)."""
    text = "def handle(stream):\n    return stream.cuda_stream\n"
    fast = migrate_python(text, "streams.py", RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(text, "streams.py", RULES, NPU, RuleOptions(), full=True)
    assert fast.text == full.text == text.replace("cuda_stream", "npu_stream")
    assert fast.findings == full.findings


@pytest.mark.parametrize(
    "text",
    [
        # `_mentions_source` reads a prefix: `torch.cuda_graph_pool` names the source.
        "import torch\n\n\ndef f(s):\n"
        '    return {"cuda": torch.cuda_graph_pool, "cpu": None}, s.cuda\n',
        # The handle after a space or a line break.
        "import torch\n\ntorch.cuda.synchronize()\n\n\n"
        "def f(s):\n    return s. cuda_stream, s.cuda\n",
        "import torch\n\n\ndef f(s):\n    return s.\\\n        cuda_stream, s.cuda\n",
    ],
)
def test_npu012s_names_gate_admits_what_the_rule_reads_as_its_own(text: str) -> None:
    fast = migrate_python(text, "gate.py", RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(text, "gate.py", RULES, NPU, RuleOptions(), full=True)
    assert [f.code for f in full.findings if f.code == "NPU012"]
    assert fast.text == full.text
    assert fast.findings == full.findings


@pytest.mark.parametrize(
    "alias",
    [
        "    import torch.cuda as tc\n",  # a function's own import
        "    from torch import npu as tc\n",  # the target's module: the chain is the NPU's
        "    import torch_npu as tc\n",
        "    from torch import cuda as tc\n",
    ],
)
def test_device_tests_through_a_functions_own_import_are_read_on_both_paths(
    alias: str,
) -> None:
    """A device test whose name resolves to a device only through an import inside the
    function is decided as on the full path: an `if` chain with an NPU branch is left
    alone, one without is migrated."""
    padding = "".join(f"    v{n} = x + {n}\n" for n in range(40))
    text = (
        "import torch\n\n\ndef f(x):\n" + alias + padding + "    if tc.is_available():\n"
        "        x = x.cuda()\n    else:\n        x = x.cpu()\n    return x\n"
    )
    fast = migrate_python(text, "heads.py", RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(text, "heads.py", RULES, NPU, RuleOptions(), full=True)
    assert fast.text == full.text
    assert fast.findings == full.findings
    assert full.findings


@pytest.mark.parametrize(
    ("head", "inside"),
    [
        ("from torch.distributed import is_nccl_available as nccl_ok\n", ""),
        (
            "import torch.distributed as dist\n",
            "    from torch.distributed import is_nccl_available as nccl_ok\n",
        ),
        ("from torch.distributed.distributed_c10d import is_nccl_available as nccl_ok\n", ""),
    ],
)
def test_an_aliased_nccl_availability_test_is_reported_on_both_paths(
    head: str, inside: str
) -> None:
    """`nccl_ok()` after `from torch.distributed import is_nccl_available as nccl_ok`
    spells none of NPU016's names: the gate resolves it through the imports, as the rule
    does, instead of skipping the region the full path reports in."""
    padding = "".join(f"    v{n} = x + {n}\n" for n in range(40))
    text = (
        f"{head}\n\ndef setup(x):\n{inside}{padding}"
        '    if nccl_ok():\n        return "gloo"\n    return x\n'
    )
    fast = migrate_python(text, "dist.py", RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(text, "dist.py", RULES, NPU, RuleOptions(), full=True)
    assert [f.code for f in full.findings] == ["NPU016"]
    assert fast.text == full.text
    assert fast.findings == full.findings


@pytest.mark.parametrize(
    ("head", "inside", "use"),
    [
        # No module-level import at all: only the function's own names the module.
        ("", "    from torch import cuda as tc\n", "    tc.synchronize()\n"),
        ("import os\n", "    from torch import cuda\n", "    cuda.synchronize()\n"),
        ("import torch\n", "    from torch import cuda\n", "    n = cuda.device_count()\n"),
    ],
)
def test_a_name_a_functions_own_import_binds_is_read_on_both_paths(
    head: str, inside: str, use: str
) -> None:
    """`cuda.synchronize()` after `from torch import cuda` inside the function spells no
    token of NPU012 ("torch.cuda..."), and the file's aliases hold only its module-level
    imports: the region search adds the names the region's own imports bind, as the full
    path's pass resolves them."""
    padding = "".join(f"    v{n} = x + {n}\n" for n in range(40))
    text = f"{head}\n\ndef f(x):\n{inside}{padding}{use}    return x\n"
    fast = migrate_python(text, "own.py", RULES, NPU, RuleOptions(), full=False)
    full = migrate_python(text, "own.py", RULES, NPU, RuleOptions(), full=True)
    assert [f.code for f in full.findings] == ["NPU012"]
    assert fast.text == full.text
    assert fast.findings == full.findings
