"""A trigger's `needs`: a file that holds a rule's token but none of its needs is not parsed
for the rule, and every spelling the rule acts on holds one (NPU078's checked modules,
NPU080's operators called by qualified name)."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import accelerate
import pytest

from migrator.analysis.bindings import module_bindings
from migrator.analysis.occurrences import finder
from migrator.contract.rule import PythonRule, RuleOptions
from migrator.contract.trigger import TokenPattern, Trigger, _Pattern, any_of
from migrator.contract.unsupported import UnsupportedConstruct
from migrator.core.project import EMPTY as EMPTY_PROJECT
from migrator.core.target import NPU
from migrator.engine import registry
from migrator.engine.python import migrate_python
from rules.cuda_python import CudaPython
from rules.lightning_gpu_accelerator import LightningGpuAccelerator
from rules.mmcv_data_parallel import MmcvDataParallel
from rules.op_without_npu_kernel import OpWithoutNpuKernel, lacking_op
from rules.torch_compile_backend import TorchCompileBackend
from rules.torch_version_drift import TorchVersionDrift

NEEDY = Trigger(tokens=("torch",), needs=(TokenPattern("cuda", r"\bcuda\b"),))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import torch\nx = torch.zeros(1)\n", False),  # the token, no need
        ("import torch\nx = torch.cuda\n", True),
        ("import torch\nx = torch._cuda_init\n", False),  # the literal, not the pattern
        ("x = cuda\n", False),  # a need, no token
    ],
)
def test_a_trigger_with_needs_matches_only_a_text_that_holds_one(text: str, expected: bool) -> None:
    assert NEEDY.matches(text) is expected
    # The pre-filter's scan of the literals gives the same answer: the scan keeps a need's
    # literal (the need is tried where it occurs); one of under three characters is
    # answered from the text.
    assert "cuda" in NEEDY.literals()
    assert NEEDY.matches(text, finder(frozenset(NEEDY.literals())).scan(text)) is expected
    short = Trigger(tokens=("torch",), needs=(TokenPattern("cu", r"\bcu(?:da)?\b"),))
    assert "cu" not in short.literals()
    assert short.matches(text, finder(frozenset(short.literals())).scan(text)) is expected


def _reports(rule: type, code: str, text: str) -> list[int]:
    """The lines the rule reports on the full path; the fast path must report the same."""
    full = migrate_python(text, "m.py", [rule], NPU, RuleOptions(), full=True)
    fast = migrate_python(text, "m.py", [rule], NPU, RuleOptions())
    assert (fast.text, fast.findings) == (full.text, full.findings), text
    return [finding.line for finding in full.findings if finding.code == code]


def _lacking() -> list[tuple[str, str]]:
    """(module, function) of every operator NPU080 reports in the default release
    (`torch.nn.functional`'s are `torch`'s ops under another name)."""
    return [
        (module, token)
        for token in OpWithoutNpuKernel.trigger.tokens
        for module in ("torch", "torch.linalg", "torch.special")
        if lacking_op(f"{module}.{token}", EMPTY_PROJECT) is not None
    ]


def _op_spellings(module: str, function: str) -> list[str]:
    """Ways to call `module.function` that NPU080 resolves to its qualified name (an op
    of `torch` also through `torch.nn.functional`)."""
    functional = [f"import torch.nn.functional as F\ny = F.{function}(a)\n"]
    return [
        *(functional if module == "torch" else []),
        f"import torch\ny = {module}.{function}(a)\n",
        f"import {module} as m\ny = m.{function}(a)\n",
        f"from {module} import {function} as f\ny = f(a)\n",
        f"from {module} import (\n    x,\n    {function},\n)\ny = {function}(a)\n",
        f"from {module} import \\\n    {function}\ny = {function}(a)\n",
        f"import torch\ny = ({module}\n     .{function}(a))\n",
        f"import torch\ny = {module}.\\\n    {function}(a)\n",
        f"def run(a):\n    from {module} import {function}\n    return {function}(a)\n",
    ]


def test_every_spelling_of_a_call_npu080_reports_passes_its_needs() -> None:
    lacking = _lacking()
    assert len(lacking) > 20 and {module for module, _ in lacking} >= {"torch", "torch.linalg"}
    trigger = OpWithoutNpuKernel.trigger
    for module, function in lacking:
        for text in _op_spellings(module, function):
            assert trigger.matches(text), text
    # On a sample the rule reports each spelling, on both paths alike.
    for module, function in lacking[:: max(1, len(lacking) // 4)]:
        for text in _op_spellings(module, function):
            assert _reports(OpWithoutNpuKernel, "NPU080", text), text


def test_npu080_skips_a_file_that_only_defines_or_documents_an_operator() -> None:
    trigger = OpWithoutNpuKernel.trigger
    for _, function in _lacking():
        text = f'def {function}(a):\n    """The {function} of a."""\n    return a\n'
        text += f'N = "{function}"\n'
        assert not trigger.matches(text), function
        assert not _reports(OpWithoutNpuKernel, "NPU080", text)


def test_npu080_finds_an_operator_a_notebooks_earlier_cell_imported() -> None:
    module, function = _lacking()[0]
    earlier = module_bindings(ast.parse(f"from {module} import {function}\n"))
    cell = f"y = {function}(a)\n"
    assert not OpWithoutNpuKernel.trigger.matches(cell)
    found = migrate_python(cell, "nb.ipynb", [OpWithoutNpuKernel], NPU, RuleOptions(),
                           inherited=earlier)  # fmt: skip
    assert [finding.code for finding in found.findings] == ["NPU080"]


MODULE_SPELLINGS = [
    "import torch as th\nindex = th.accelerator.device_index()\n",
    "from torch import accelerator as acc\nindex = acc.device_index()\n",
    "import torch.cuda as tc\nx = tc.not_a_cuda_function()\n",
    "from torch.amp import not_an_amp_name\n",
    "import torch\n\n\ndef f():\n    import torch as t\n    return t.npu.not_an_npu_name()\n",
    "import torch_npu\nx = torch_npu.not_a_torch_npu_name\n",
]


COMPILE_SPELLINGS = [
    "import torch\nmodel = torch.compile(model)\n",
    "from torch import compile as jit\nmodel = jit(model)\n",
    "import torch as th\n\n\n@th.compile\ndef step(x):\n    return x\n",
    "import torch\nmodel.compile()\n",
]


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        *((TorchVersionDrift, text) for text in MODULE_SPELLINGS),
        *((TorchCompileBackend, text) for text in COMPILE_SPELLINGS),
    ],
)
def test_every_spelling_of_a_name_a_rule_reports_passes_its_needs(
    rule: type[PythonRule], text: str
) -> None:
    assert rule.trigger.matches(text)
    assert _reports(rule, rule.code, text)


def test_npu078_skips_a_file_that_imports_torch_and_names_no_module_it_checks() -> None:
    text = "import torch\nfrom torch import nn\nx = torch.zeros(1, device=device)\n"
    assert TorchVersionDrift.trigger.matches(text.replace("zeros(1", "cuda.zeros(1"))
    assert not TorchVersionDrift.trigger.matches(text)


def _pattern_texts() -> list[str]:
    files = sorted(Path(accelerate.__file__).parent.rglob("*.py"))[:24]
    edges = [
        "clamp = example\n",
        "import torch.cuda.amp as amp\n",
        "x = re.compile(p)\ny = torch.compile(m)\n",
        "from  torch import hypot\n",
        "importtorch\n",
        "clamp(x); amp_x = 1; y.amp\n",
        "x = (torch\n  .hypot(a)); re.compile(p); m.compile()\n",
        "",
    ]
    return [*edges, *(file.read_text(encoding="utf-8") for file in files)]


def test_each_rules_patterns_and_needs_match_where_the_regex_searched_finds_them() -> None:
    texts = _pattern_texts()
    led = 0
    for rule in registry.load().rules:
        for pattern in (*rule.trigger.patterns, *rule.trigger.needs):
            if pattern.one_line:
                continue
            found = _Pattern(pattern)
            led += found.led
            regex = re.compile(pattern.regex)
            for text in texts:
                expected = regex.search(text) is not None
                assert found.occurs(text) is expected, (rule.code, pattern, text[:80])
    # Some are searched from their literal (NPU078's `\bamp\b`, NPU060's `.compile`).
    assert led >= 10


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import cuda\n", True),
        ("import os, cuda.cudart as rt\n", True),
        ("from cuda import cudart\n", True),
        ("from numba import cuda\n", True),  # errs on the side of yes
        ("import torch.cuda\nx.cuda()\n", False),
        ("reimport cuda\nimport_cuda = 1\n", False),
    ],
)
def test_npu069_needs_an_import_that_may_name_the_cuda_module(text: str, expected: bool) -> None:
    (need,) = CudaPython.trigger.needs
    assert _Pattern(need).occurs(text) is expected
    assert CudaPython.trigger.matches(text) is expected


@pytest.mark.parametrize(
    ("rule", "code", "acted", "skipped"),
    [
        (
            LightningGpuAccelerator,
            "NPU081",
            'import lightning as L\ntrainer = L.Trainer(accelerator="gpu")\n',
            'from accelerate import Accelerator\nacc = Accelerator(accelerator="gpu")\n',
        ),
        (
            MmcvDataParallel,
            "NPU021",
            "from mmcv.parallel import MMDataParallel as DP\nmodel = DP(model, device_ids=[0])\n",
            "import torch\nmodel = torch.nn.DataParallel(model)\n",
        ),
    ],
)
def test_a_rule_whose_names_come_from_one_package_needs_its_name(
    rule: type, code: str, acted: str, skipped: str
) -> None:
    assert rule.trigger.matches(acted)
    assert _reports(rule, code, acted)
    # The token is there (`accelerator=`, `DataParallel`), the package's name is not.
    assert any(token in skipped for token in rule.trigger.tokens)
    assert not rule.trigger.matches(skipped)


def test_a_notebook_cell_meets_a_needs_through_an_earlier_cells_imports() -> None:
    # The need ("lightning") is in the first cell, the call in the second.
    earlier = module_bindings(ast.parse("import lightning as L\n"))
    cell = 'trainer = L.Trainer(accelerator="gpu")\n'
    assert not LightningGpuAccelerator.trigger.matches(cell)
    found = migrate_python(cell, "nb.ipynb", [LightningGpuAccelerator], NPU, RuleOptions(),
                           inherited=earlier)  # fmt: skip
    assert [finding.code for finding in found.findings] == ["NPU081"]


def test_a_subclass_with_other_uses_needs_their_names_not_its_parents() -> None:
    """A subclass's needs are its own `uses`' last names, and so is what an alias must lead
    to (`Trigger.through`: its own `uses`, and what its trigger carried, a parent's or
    its own); a class with visits of its own gets no `through`."""
    import libcst as cst

    class Parent(UnsupportedConstruct):
        trigger = Trigger(tokens=("pkg",))
        uses = ("pkg.alpha",)
        message = suggestion = "x"

    class Child(Parent):
        uses = ("pkg.beta",)

    class Declared(UnsupportedConstruct):
        trigger = Trigger(
            tokens=("pkg",), needs=(TokenPattern("pkg", "pkg"),), through=("pkg.delta",)
        )
        uses = ("pkg.gamma",)
        message = suggestion = "x"

    class Visiting(Parent):
        def visit_Name(self, node: cst.Name) -> None:
            pass

    assert [need.literal for need in Parent.trigger.needs] == ["alpha"]
    assert [need.literal for need in Child.trigger.needs] == ["beta"]
    assert [need.literal for need in Declared.trigger.needs] == ["pkg"]
    assert Child.trigger.matches("import pkg\npkg.beta()\n")
    assert not Child.trigger.matches("import pkg\npkg.alpha()\n")
    assert Parent.trigger.through == ("pkg.alpha",)
    assert Child.trigger.through is not None and "pkg.beta" in Child.trigger.through
    assert Declared.trigger.through == ("pkg.delta", "pkg.gamma")
    assert Visiting.trigger.through is None
    # Its gate reads the names it calls, decorates with or imports, unless it visits more.
    assert Parent.trigger.names_called and Child.trigger.names_called
    assert Declared.trigger.names_called
    assert not Visiting.trigger.names_called

    class Gated(Parent):
        trigger = dataclasses.replace(Parent.trigger, names=lambda names, view: True)

    class Mixin:
        def visit_Name(self, node: cst.Name) -> None:
            pass

    class Mixed(Parent, Mixin):
        pass

    assert not Gated.trigger.names_called  # a gate of its own reads every name
    assert not Mixed.trigger.names_called and Mixed.trigger.through is None


@pytest.mark.parametrize("after", ["", "\\b", "\\(", "z"])
def test_any_of_matches_where_the_plain_alternation_does(after: str) -> None:
    """The prefix tree of words (one a prefix of another, escapes, one letter) matches at
    every place the plain alternation matches, followed by the same thing, and nowhere
    else; on a real file too, with NPU080's own names."""
    import random

    words = ["lu", "lu_factor", "lu_solve", "mode", "a.b", "a+b", "x", "xy", "xyz(", "_"]
    plain = re.compile("(?:" + "|".join(map(re.escape, words)) + ")" + after)
    tree = re.compile("(?:" + any_of(words) + ")" + after)
    pieces = [*words, "l", "u", "_", ".", "+", " ", "(", "z", "fac", "tor"]
    chooser = random.Random(18)
    for _ in range(300):
        text = "".join(chooser.choice(pieces) for _ in range(12))
        for at in range(len(text) + 1):
            assert (plain.match(text, at) is None) == (tree.match(text, at) is None), text
    names = OpWithoutNpuKernel.trigger.tokens
    real = "".join(
        path.read_text(encoding="utf-8")
        for path in sorted(Path(accelerate.__file__).parent.rglob("*.py"))[:40]
    )
    found = 0
    for regex in ("\\.[\\s\\\\]*(?:{})\\b", "\\b(?:{})\\b"):
        plain = re.compile(regex.format("|".join(map(re.escape, names))))
        tree = re.compile(regex.format(any_of(names)))
        starts = [match.start() for match in plain.finditer(real)]
        assert starts == [match.start() for match in tree.finditer(real)]
        found += len(starts)
    assert found > 10


@pytest.mark.parametrize(
    ("text", "brought"),
    [
        ("from decord import nd as dn\nr = dn.gpu(0)\n", True),
        ("import decord.nd as dn\nr = dn.gpu(0)\n", True),
        ("from decord.nd import gpu as g\nr = g(0)\n", True),
        ("from other import nd as dn\nr = dn.gpu(0)\n", False),
        ("import decord as de\nr = de.cpu(0)\n", False),
    ],
)
def test_a_dotted_token_spelt_through_an_import_is_found_with_its_module_named(
    text: str, brought: bool
) -> None:
    """`decord.nd.gpu` is found where an import binds a name to `decord.nd` or
    `decord.nd.gpu`, though the text never spells either; the file's imports are read only
    where it spells the module's first name."""
    trigger = Trigger(tokens=("decord.nd.gpu",))
    assert trigger.matches(text) is brought
    found = finder(trigger.literals()).scan(text)
    assert trigger.matches(text, found) is brought
    # The pre-filter's quick check lets every such text through, whatever the finder
    # holds: with "decord" held, the imports' names hold it.
    assert trigger.may_match(found) or not brought
    wider = finder(frozenset({*trigger.literals(), "decord", "gpu"})).scan(text)
    assert trigger.may_match(wider) or not brought
    # A text that spells none of the literals every admitted text holds is turned away.
    held = frozenset({*trigger.literals(), "decord", "gpu"})
    assert not trigger.may_match(finder(held).scan("import os\nr = os.sep\n"))


def test_module_names_are_read_off_the_import_lines_only() -> None:
    from migrator.contract.trigger import _module_names

    text = (
        's = "data from foo import (bar"\n'  # not at a line's start, and it spans the next
        "from torch import (cuda)\n"
        "import a; import b  # import c\n"
        "  import d.e as f\n"
        "xfrom g import h\n"
    )
    assert _module_names(text) == {
        "torch.cuda": frozenset({"cuda"}),
        "a": frozenset({"a"}),
        "d.e": frozenset({"f"}),
    }


def test_npu060_skips_a_file_that_only_names_torch_compiler() -> None:
    text = "import torch\nif torch.compiler.is_compiling():\n    pass\n"
    assert not TorchCompileBackend.trigger.matches(text)
    assert TorchCompileBackend.trigger.matches(text + "model = torch.compile(model)\n")
