"""What lets the fast path skip work on large trees gives the full path's output: string
literals and longer names do not count for names-only rules, a gate sees earlier cells'
imports, whole-module rules run after the per-region ones, and an import is written on
the module's head only."""

from __future__ import annotations

import re

import pytest

from migrator.analysis.ast_lines import hot_lines, hot_lines_of, qualified_names
from migrator.analysis.bindings import module_bindings
from migrator.contract.rule import PythonRule, RuleOptions
from migrator.core.target import NPU
from migrator.engine import registry
from migrator.engine.python import migrate_python, parse_ast, without_strings
from migrator.formats.sources import split_lines

RULES = [
    rule
    for rule in registry.load().for_profile(registry.load().profile("generic"))  # type: ignore[arg-type]
    if issubclass(rule, PythonRule)
]

SOURCES = {
    "strings_and_longer_names": (
        "import torch\n\nARGS = {\n    torch._C._cudnn_rnn: [{'name': 'allow_tf32'}],\n"
        '    \'triton_kernel\': """cudnn""",\n}\ntorch.backends.cudnn.benchmark = True\n'
        'flag = f"{torch.backends.cudnn.allow_tf32}"\n'
    ),
    "import_added_below_the_head": (
        '"""Doc."""\nimport os\nfrom torch.cuda.amp import GradScaler\n\n# a comment\n\n'
        "@decorator\ndef f():\n    return GradScaler(2.0**16, enabled=True)\n"
    ),
    "import_added_crlf": (
        "from torch.cuda.amp import GradScaler\r\nscaler = GradScaler()\r\nx = 1\r\n"
    ),
    "entry_point_after_regions": (
        '"""Train."""\nimport torch\n\nDATA = {"a": [1, 2, 3]}\n\n\ndef main():\n'
        "    x = torch.ones(1).cuda()\n    torch.backends.cudnn.benchmark = True\n"
        '    x.backward()\n\n\nif __name__ == "__main__":\n    main()\n'
    ),
    "local_torch_import": (
        "def f():\n    import torch as t\n\n    return t.accelerator.device_index()\n"
    ),
    # The names gates: an op with no NPU kernel through an alias, a name torch 2.7.1
    # lacks next to one it has, and a CUDA-only API reported only where its name resolves.
    "names_gates": (
        "import torch as th\nimport torch.nn.functional as F\nfrom triton import jit as j\n\n"
        "def f(a, b):\n    th.cuda.synchronize()\n    return th.hypot(a, b), F.huber_loss(a, b)\n\n"
        "def g():\n    return th.accelerator.device_index(), th.cuda.device_count()\n\n"
        "@j\ndef kernel(x):\n    pass\n\n"
        "def h(triton):\n    return triton.jit(kernel), torch.hypot(1, 2)\n"
    ),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_fast_path_equals_full_path(name: str) -> None:
    text = SOURCES[name]
    fast = migrate_python(text, "train.py", RULES, NPU, RuleOptions())
    full = migrate_python(text, "train.py", RULES, NPU, RuleOptions(), full=True)
    assert (fast.text, fast.changes, fast.warnings) == (full.text, full.changes, full.warnings)
    assert fast.findings == full.findings
    if name.startswith("import_added"):
        assert "from torch.amp import GradScaler" in fast.text
    if name == "names_gates":
        found = sorted((finding.code, finding.line) for finding in fast.findings)
        assert [item for item in found if item[0] in {"NPU051", "NPU078", "NPU080"}] == [
            ("NPU051", 3),
            ("NPU051", 12),
            ("NPU078", 10),
            ("NPU080", 7),
            ("NPU080", 7),
        ]


def test_a_gate_sees_names_an_earlier_cell_imported() -> None:
    earlier = module_bindings(parse_ast("from cuda import cudart\n"))
    cell = "err, free, total = cudart.cudaMemGetInfo()\n"
    fast = migrate_python(cell, "n.ipynb", RULES, NPU, RuleOptions(), inherited=earlier)
    full = migrate_python(cell, "n.ipynb", RULES, NPU, RuleOptions(), inherited=earlier, full=True)
    assert [f.code for f in fast.findings] == [f.code for f in full.findings] == ["NPU069"]


def test_string_literals_are_blanked_and_code_kept() -> None:
    code = "a = 'cudnn' + b\"x\\\"y\" + f\"{cudnn.x}\"  # cudnn\ns = '''\ncudnn\n'''\n"
    blanked = without_strings(code)
    assert blanked.count("\n") == code.count("\n")
    assert "'cudnn'" not in blanked and "\ncudnn\n" not in blanked
    assert 'f"{cudnn.x}"' in blanked and "# cudnn" in blanked and "+ b" not in blanked


PARTS = (
    r"\bcuda\b",
    r"\btorch\.cuda\b",
    r"\bi0\b",
    r"colou?r",
    r"\bimport\b[^\n]*\btorch\b|\bfrom\s+x",
    r"\.cuda\s*\(",
    r"(?<!\bre)\.compile\b",
    r"_x",
    r"ab*",
    r"\bdef\s+cuda\b",
)
TEXTS = (
    "x = cuda\nacuda = 1; cuda_x = torch.cuda.y\n# cuda\n    # torch.cuda\nécuda\n",
    "cuda" + "\n" * 3 + "torch.cudax torch.cuda\n_cuda cuda.cuda\ni0 = i0_ + xi0\n",
    "colr color colour\nimport os, torch\nfrom x import y\nx.cuda ()\nre.compile(p)\n",
    "m.compile()\n_x a ab abbb\ndef  cuda(): pass\nclass A:\n    def cuda(self): ...\n",
)


@pytest.mark.parametrize("text", TEXTS)
def test_part_by_part_line_search_finds_the_alternations_lines(text: str) -> None:
    lines = split_lines(text)
    pattern = re.compile("|".join(PARTS))
    assert hot_lines_of(text, lines, PARTS) == hot_lines(text, lines, pattern)
    for part in PARTS:
        assert hot_lines_of(text, lines, [part]) == hot_lines(text, lines, re.compile(part))


def test_qualified_names_resolve_heads_through_module_and_local_imports() -> None:
    tree = parse_ast(
        "import torch as th\nfrom torch import cuda\n"
        "def f():\n    import numpy as np\n    from torch.accelerator import memory\n"
        "    return th.cuda.amp.autocast, cuda.synchronize(), np.float64, other.x, memory\n"
    )
    names = qualified_names(tree.body[2:], module_bindings(tree).names)
    assert {
        "torch",
        "torch.cuda",
        "torch.cuda.amp",
        "torch.cuda.amp.autocast",
        "torch.cuda.synchronize",
        "numpy.float64",
        "torch.accelerator.memory",
        "torch.accelerator",
    } <= names
    assert not any(name.startswith(("other", "th.")) for name in names)


def test_reporters_of_named_apis_are_gated_on_names_unless_they_visit_more() -> None:
    by_code = {rule.code: rule for rule in RULES}
    assert by_code["NPU051"].trigger.names is not None  # triton: imports, calls, decorators
    assert by_code["NPU060"].trigger.names is None  # also `model.compile()`, by attribute
    gate = by_code["NPU051"].trigger.names
    view = None  # the uses gate reads only the names
    assert gate(frozenset({"triton.language.load"}), view)  # type: ignore[arg-type]
    assert not gate(frozenset({"tritonclient", "torch.cuda"}), view)  # type: ignore[arg-type]
