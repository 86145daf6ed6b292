"""What lets the fast path skip work on large trees gives the full path's output: string
literals and longer names do not count for names-only rules, a gate sees earlier cells'
imports, whole-module rules run after the per-region ones, and an import is written on
the module's head only."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

import accelerate
import accelerate.accelerator
import accelerate.utils.dataclasses
import pytest

from migrator.analysis import ast_lines
from migrator.analysis.ast_lines import hot_lines, hot_lines_of, qualified_names
from migrator.analysis.bindings import module_bindings
from migrator.contract.rule import PythonRule, RuleOptions
from migrator.contract.trigger import FileView
from migrator.core.target import NPU
from migrator.engine import registry
from migrator.engine.python import migrate_python, parse_ast, without_strings
from migrator.formats.sources import split_lines
from tests.helpers import record_parses

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
    # The region gates, through import aliases (module-level and a function's own): a
    # float64 value on the device (NPU062), an if-chain whose test names a device
    # (NPU077), `.compile()` on an f-string's value (NPU060).
    "region_gates": (
        "import numpy as np\n"
        "import torch\n"
        "from numpy import float64 as F8\n"
        "from torch.cuda import is_available as ready\n"
        "from torch.distributed import all_reduce as ar\n"
        "\n"
        "\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x.double()\n"
        "\n"
        "\n"
        "def sync(values):\n"
        "    t = torch.tensor(np.asarray(values, dtype=F8))\n"
        "    ar(t)\n"
        "\n"
        "\n"
        "def local(values):\n"
        "    from torch import float64 as wide\n"
        "\n"
        '    return torch.zeros(2, dtype=wide, device="cuda")\n'
        "\n"
        "\n"
        "def guarded(x):\n"
        "    if ready():\n"
        "        import apex.cuda_ext\n"
        "    return x\n"
        "\n"
        "\n"
        "def aliased(x):\n"
        "    import torch.npu as tn\n"
        "\n"
        "    if tn.is_available():\n"
        "        return x.cuda()\n"
        "    return x\n"
        "\n"
        "\n"
        "def compiled(model):\n"
        '    return f"{model}".compile()\n'
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
    if name == "region_gates":
        found = sorted((finding.code, finding.line) for finding in fast.findings)
        assert [item for item in found if item[0] in {"NPU060", "NPU062", "NPU077"}] == [
            ("NPU060", 39),
            ("NPU062", 10),
            ("NPU062", 15),
            ("NPU062", 21),
            ("NPU077", 25),
            ("NPU077", 33),
        ]


def _region_gate(code: str, text: str) -> bool:
    from migrator.contract.trigger import RegionView

    rule = next(rule for rule in RULES if rule.code == code)
    tree = parse_ast(text)
    facts = rule.trigger.file_facts(tree, text)
    assert rule.trigger.region is not None
    names = module_bindings(tree).names
    view = RegionView(tuple(tree.body), names, NPU, lambda: facts, text)
    # Without the engine's names, a gate reads them as the engine makes them.
    assert view.qualified == qualified_names(tree.body, names)
    return rule.trigger.region_passes(view)


@pytest.mark.parametrize(
    ("code", "text", "passes"),
    [
        # float64 without the device, the device without float64, then both.
        ("NPU062", "import torch\nDTYPES = [torch.float64, torch.float32]\n", False),
        ("NPU062", "import torch\nx = torch.zeros(2, device='cuda')\n", False),
        ("NPU062", "import torch\nx = torch.zeros(2, dtype=torch.double).cuda()\n", True),
        ("NPU062", "import numpy as np\ny = a.astype(float).to(device)\n", True),
        # A model class's method reaches the device by the rule's facts alone.
        ("NPU062", "import torch\nclass M(torch.nn.Module):\n    w = x.double()\n", True),
        # float64 is made only by a call that names it or is given it: a comparison or a
        # table of dtypes makes none, even in a model class on the device.
        (
            "NPU062",
            "import torch\nclass M(torch.nn.Module):\n    wide = x.dtype == torch.float64\n",
            False,
        ),
        ("NPU062", "import torch\nt = torch.zeros(2, device='cuda').to(torch.float64)\n", True),
        ("NPU062", "from torch import float64 as F\nt = torch.ones(2, dtype=F).cuda()\n", True),
        ("NPU062", "import torch\nt = torch.cuda.DoubleTensor(2)\n", True),
        ("NPU062", "import numpy as np\nt = torch.from_numpy(a.astype(np.float64)).cuda()\n", True),
        ("NPU062", "import torch\ny = x.cuda().type(torch.DoubleTensor)\n", True),
        # A dtype handed to any other call, or as another keyword, makes nothing float64
        # (an OpInfo table: `dtypes=floating_types_and(torch.double)`, device='cuda').
        (
            "NPU062",
            "import torch\nops = [Op(dtypes=fl(torch.double), device='cuda', x=(torch.float64,))]",
            False,
        ),
        # Nothing reaches the device through a name of `torch.cuda` that is not called,
        # nor through `.to()` given only `*args, **kwargs` (an OpInfo's lambda); a
        # device name, a string, `.type()` with a string, the CUDA DoubleTensor do.
        ("NPU062", "import torch\nok = torch.cuda.is_available() and x.double()\n", False),
        ("NPU062", "f = lambda x, *args, **kwargs: (x.to(*args, **kwargs), x.double())\n", False),
        ("NPU062", "y = x.double().to(*dev_args)\n", True),
        ("NPU062", "y = x.double().to(self.device)\n", True),
        ("NPU062", "y = x.to('cpu').double()\n", False),
        ("NPU062", "y = x.double().to('npu:0')\n", True),
        ("NPU062", "y = x.double().type('torch.cuda.FloatTensor')\n", True),
        ("NPU062", "import torch\ny = x.to(torch.cuda.DoubleTensor)\n", True),
        # The CUDA DoubleTensor by an alias, through an alias of torch.cuda, as NPU012
        # leaves it; the CPU one alone makes nothing on the device.
        ("NPU062", "from torch.cuda import DoubleTensor as CDT\ny = x.to(CDT)\n", True),
        ("NPU062", "from torch.cuda import DoubleTensor as CDT\ny = x.type(CDT)\n", True),
        ("NPU062", "from torch.cuda import DoubleTensor\ny = DoubleTensor(3)\n", True),
        ("NPU062", "import torch.cuda as tc\ny = tc.DoubleTensor(3)\n", True),
        ("NPU062", "import torch\ny = torch.npu.DoubleTensor(3)\n", True),
        ("NPU062", "def f():\n    from torch.cuda import DoubleTensor as D\n    D(3)\n", True),
        ("NPU062", "import torch\ny = torch.DoubleTensor(3)\n", False),
        # NVML: an import, a call through an alias, a runner, an argv list held in a name;
        # not a table of NVML function names (torch's hipify mappings).
        ("NPU061", "import pynvml\n", True),
        ("NPU061", "from pynvml import nvmlInit as init\ninit()\n", True),
        ("NPU061", "import os\nos.system(cmd)\n", True),
        ("NPU061", "cmd = ('nvidia-smi', '-L')\n", True),
        ("NPU061", "cmd = [f'{SMI}', '-L']\n", True),
        ("NPU061", "MAP = [('nvmlInit', ('rsmi_init', API_RSMI))]\n", False),
        ("NPU061", "cmd = ['echo', 'nvidia-smi']\n", False),
        ("NPU061", "cmd = [*'nvidia-smi']\n", True),
        # An if whose test names no device, one that tests the NPU, and an alias of
        # one; an assert that tests CUDA only through an alias asserts no device.
        ("NPU077", "if flag:\n    torch.cuda.synchronize()\n", False),
        ("NPU077", "if x.device.type == 'npu':\n    y = x.cuda()\n", True),
        ("NPU077", "from a import gpu_ok as ok\nassert ok(), 'cuda'\n", False),
        ("NPU077", "from torch_npu.npu import is_available as ok\nassert ok(), 'cuda'\n", True),
        ("NPU077", "from torch.cuda import is_available as ok\nassert ok(), 'cuda'\n", False),
        # torch.compiler is not torch.compile; a method call named compile is.
        ("NPU060", "import torch\ntorch.compiler.disable(f)\n", False),
        ("NPU060", "import torch\nmodel.compile(mode='max-autotune')\n", True),
        ("NPU060", "import re\npattern.compile()\n", False),
        ("NPU060", "from torch import compile as jit\nm = jit(m)\n", True),
        # An mmcv config's optimizer dict at module level, under an `if` too; not in a
        # function, not another name, not another call.
        ("NPU022", "optimizer = dict(type='AdamW', lr=1e-3)\n", True),
        ("NPU022", "if x:\n    pass\nelse:\n    optim_wrapper = dict(optimizer=o)\n", True),
        ("NPU022", "try:\n    pass\nexcept E:\n    optimizer = dict(type='SGD')\n", True),
        ("NPU022", "def f():\n    optimizer = dict(type='AdamW')\n", False),
        ("NPU022", "opt = dict(type='AdamW')\noptimizer = build(type='AdamW')\n", False),
        ("NPU022", "optimizer = other = dict(type='AdamW')\n", False),
        # A CUDA-side variable as a string or a keyword's name; not a constant's name.
        ("NPU017", "import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n", True),
        ("NPU017", "env = dict(NCCL_DEBUG='INFO')\n", True),
        ("NPU017", "CUDA_HOME = find()\nx = self._NCCL_STREAMS\n", False),
    ],
)
def test_region_gates_foresee_what_the_rule_reads(code: str, text: str, passes: bool) -> None:
    assert _region_gate(code, text) is passes


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("NPU062", "from torch.cuda import DoubleTensor as CDT\ny = x.to(CDT)\n"),
        ("NPU062", "from torch.cuda import DoubleTensor as CDT\ny = x.type(CDT)\n"),
        ("NPU062", "from torch.cuda import DoubleTensor\ny = DoubleTensor(3)\n"),
        ("NPU062", "import torch.cuda as tc\ny = tc.DoubleTensor(3)\n"),
        ("NPU062", "import torch\ny = torch.cuda.DoubleTensor(3)\n"),
        ("NPU062", "import torch\ny = torch.from_numpy(a.astype(dtype='f8')).cuda()\n"),
        ("NPU062", "import torch\ny = torch.from_numpy(a.astype(float)).cuda()\n"),
        (
            "NPU062",
            "import numpy as np\nimport torch\n\n\ndef f(n):\n"
            "    a = np.zeros(n, dtype=float)\n    return torch.from_numpy(a).cuda()\n",
        ),
        ("NPU061", "cmd = [*'nvidia-smi']\n"),
    ],
)
def test_where_the_rule_reports_the_fast_path_reports_too(code: str, text: str) -> None:
    # A gate that says no where the rule reports loses the report on the fast path only.
    full = migrate_python(text, "x.py", RULES, NPU, RuleOptions(), full=True)
    fast = migrate_python(text, "x.py", RULES, NPU, RuleOptions())
    assert code in {finding.code for finding in full.findings}
    assert (fast.text, fast.findings) == (full.text, full.findings)
    assert _region_gate(code, text)


@pytest.mark.parametrize(
    ("code", "text", "passes"),
    [
        # Device strings in every spelling the rule rewrites; a registration's "CUDA".
        ("NPU010", "x = x.to('cuda')\n", True),
        ("NPU010", "d = f'cuda:{rank}'\n", True),
        ("NPU010", "d = 'cuda:' + str(rank)\n", True),
        ("NPU010", "d = 'cuda:{}'.format(rank)\n", True),
        ("NPU010", "lib.impl('op', kernel, 'CUDA')\n", True),
        # A constant in another case with no call, a name that starts with the device,
        # log text.
        ("NPU010", "_BACKEND = 'CUDA'\n", False),
        ("NPU010", "__all__ = ['cudagraph_mark_step_begin']\n", False),
        ("NPU010", "print('cuda is ready')\n", False),
    ],
)
def test_statement_gates_foresee_what_the_rule_reads(code: str, text: str, passes: bool) -> None:
    rule = next(rule for rule in RULES if rule.code == code)
    assert rule.trigger.statement_gate is not None
    tree = parse_ast(text)
    assert any(rule.trigger.in_statement(node, NPU) for node in tree.body) is passes


@pytest.mark.parametrize(
    ("text", "passes"),
    [
        # Backend strings, Backend.NCCL, the availability probe, also through a name an
        # import binds to it (here or in the function); identifiers and log text that
        # only contain the token, and a name bound to something else.
        ("dist.init_process_group('nccl')\n", True),
        ("backend = 'cpu:gloo,cuda:gloo'\n", True),
        ("b = dist.Backend.NCCL\n", True),
        ("ok = is_nccl_available()\n", True),
        ("from torch.distributed import is_nccl_available as avail\nok = avail()\n", True),
        (
            "def f():\n    from torch.distributed import is_nccl_available as a\n    return a()\n",
            True,
        ),
        ("NCCL_TIMEOUT = 5\nself._nccl_comm = None\n", False),
        ("print('nccl ready')\n", False),
        ("from torch.distributed import is_gloo_available as avail\nok = avail()\n", False),
    ],
)
def test_npu016s_region_gate_foresees_what_the_rule_reads(text: str, passes: bool) -> None:
    assert _region_gate("NPU016", text) is passes


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


def test_many_whole_word_parts_find_the_alternations_lines() -> None:
    from migrator.analysis.ast_lines import _MANY_WORDS

    # Enough `\\bname\\b` parts that the file's words are read first: names present
    # whole, only inside longer words (`cholesky_ex`, `écuda`, `x_cuda`), in a comment,
    # absent; and parts of other shapes beside them.
    names = [f"op{number}" for number in range(_MANY_WORDS)] + ["cholesky", "cuda", "tf32"]
    parts = [rf"\b{name}\b" for name in names] + [r"\.cuda\s*\(", r"colou?r"]
    text = (
        "y = op3(x) + cholesky_ex(a)\nécuda = x_cuda\n# op5 here\nz = op7\n"
        "m.cuda (1)\ncolor = tf32\nop30 = 1\n"
    )
    lines = split_lines(text)
    pattern = re.compile("|".join(parts))
    assert hot_lines_of(text, lines, parts) == hot_lines(text, lines, pattern) == [1, 4, 5, 6]


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


@pytest.mark.parametrize(
    ("code", "acts_on", "not_on"),
    [
        ("NPU021", "mmcv.parallel.MMDataParallel", "torch.nn.parallel.DistributedDataParallel"),
        ("NPU004", "torch.optim.AdamW", "transformers.AdamW"),
        ("NPU002", "torch.autograd.grad_mode.inference_mode", "torch.is_inference_mode_enabled"),
        ("NPU018", "torch.cuda.nccl.version", "torch.distributed.ProcessGroupNCCL"),
        ("NPU018", "torch.version.cuda", "torch.version.hip"),
    ],
)
def test_rules_of_named_calls_skip_regions_that_name_none_of_them(
    code: str, acts_on: str, not_on: str
) -> None:
    gate = next(rule for rule in RULES if rule.code == code).trigger.names
    assert gate is not None
    view = FileView("m.py", "", RuleOptions())
    assert gate(frozenset({acts_on, "torch"}), view)
    assert not gate(frozenset({not_on, "torch"}), view)


def test_the_stdlib_walks_are_ast_walks_in_its_order_without_the_contexts() -> None:
    sources = [
        Path(module.__file__).read_text(encoding="utf-8")
        for module in (accelerate.accelerator, accelerate.utils.dataclasses)
    ]
    trees = [ast.parse(source) for source in sources]
    kinds = (ast.ClassDef, ast.Call, ast.arg)
    for tree in (*trees, trees[0]):
        every = list(ast.walk(tree))
        walked = [node for node in every if not isinstance(node, ast.expr_context)]
        assert [id(node) for node in ast_lines.walk(tree)] == [id(node) for node in walked]
        assert len(walked) < len(every) * 3 // 4
        expected = [node for kind in kinds for node in walked if type(node) is kind]
        # Each file's own nodes, also when the last tree asked about was another.
        assert ast_lines.nodes_of(tree, kinds) == expected
        assert len(expected) > 100
        # A node's children: ast.iter_child_nodes's, in its order, without the contexts.
        for node in every:
            children = [
                child
                for child in ast.iter_child_nodes(node)
                if not isinstance(child, ast.expr_context)
            ]
            assert [id(child) for child in ast_lines.child_nodes(node)] == list(map(id, children))


def test_torch_cuda_in_generated_code_strings_is_not_parsed_for_npu012(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rule = next(rule for rule in RULES if rule.code == "NPU012")
    parses = record_parses(monkeypatch)
    strings = 'import torch\n\n\ndef header(w):\n    w.writeline("from torch.cuda import nvtx")\n'
    outcome = migrate_python(strings, "m.py", [rule], NPU, RuleOptions())
    assert parses == [] and not outcome.findings
    code = "import torch\n\n\ndef sync():\n    torch.cuda.synchronize()\n"
    outcome = migrate_python(code, "m.py", [rule], NPU, RuleOptions())
    assert len(parses) == 1 and [finding.code for finding in outcome.findings] == ["NPU012"]


@pytest.mark.parametrize(
    "changes",
    [
        # (first, last, new lines): a region that grows at its end, at its start, in the
        # middle, one that shrinks, two at once, and one at the end of the file.
        [(2, 3, ["b\n", "c\n", "x\n"])],
        [(2, 3, ["x\n", "b\n", "c\n"])],
        [(4, 6, ["d\n", "x\n", "y\n", "e\n", "f\n"])],
        [(4, 6, ["d\n", "f\n"])],
        [(1, 1, ["import os\n", "a\n"]), (7, 8, ["g\n", "h2\n", "h3\n", "h\n"])],
        [(8, 8, ["h\n", "i\n"])],
    ],
)
def test_the_line_map_of_region_edits_is_the_whole_texts_diff(
    changes: list[tuple[int, int, list[str]]],
) -> None:
    from migrator.engine.python import _region_line_map, remap_lines

    text = "".join(f"{letter}\n" for letter in "abcdefgh")
    lines = split_lines(text)
    for first, last, new in reversed(changes):
        lines[first - 1 : last] = new
    new_text = "".join(lines)
    assert _region_line_map(text, new_text, changes) == remap_lines(text, new_text, None)


def test_the_line_map_with_other_line_breaks_is_the_whole_texts_diff() -> None:
    from migrator.engine.python import _region_line_map, remap_lines

    # A form feed, which `str.splitlines` splits on and the file's lines do not.
    text = "a\nb\x0cc\nd\n"
    new_text = "a\nx\nb\x0cc\nd\n"
    changes = [(2, 2, ["x\n", "b\x0cc\n"])]
    assert _region_line_map(text, new_text, changes) == remap_lines(text, new_text, None)


@pytest.mark.parametrize(
    "module", [accelerate.accelerator, accelerate.utils.dataclasses], ids=lambda m: m.__name__
)
def test_nested_statements_are_every_statement_a_walk_finds(module: object) -> None:
    # Classes in functions, in `try` handlers, `else` and `finally` blocks and `match`
    # cases included: NPU062's model classes are found without walking expressions.
    text = Path(str(getattr(module, "__file__", ""))).read_text(encoding="utf-8")
    text += (
        "def f(x):\n    try:\n        class A: pass\n    except E:\n        class B: pass\n"
        "    else:\n        class C: pass\n    finally:\n        class D: pass\n"
        "    match x:\n        case 1:\n            class E2: pass\n"
        "    for y in x:\n        pass\n    else:\n        class F: pass\n"
    )
    tree = ast.parse(text)

    def statements(found: Iterable[ast.AST]) -> list[tuple[int, int, str]]:
        return sorted(
            (s.lineno, s.col_offset, type(s).__name__) for s in found if isinstance(s, ast.stmt)
        )

    walked = statements(ast.walk(tree))
    assert statements(ast_lines.nested_statements(tree.body)) == walked
    assert {"A", "B", "C", "D", "E2", "F"} <= {
        s.name for s in ast_lines.nested_statements(tree.body) if isinstance(s, ast.ClassDef)
    }


def test_called_names_are_the_callees_bare_decorators_and_imports() -> None:
    """`qualified_names(..., called=True)` keeps, of the dotted names, those a statement
    calls or decorates with: a table keyed by an operator names it without calling it."""
    tree = parse_ast(
        "import torch as th\nimport triton as tr\n"
        "def f(x):\n    from torch.linalg import eig\n"
        "    table = {th.lgamma: lambda a: -1, th.Tensor.cuda: lambda self: -1}\n"
        "    return th.hypot(x, x), eig(x), x.cuda()\n"
        "@tr.jit\n@tr.autotune(configs=[])\ndef kernel(n):\n    pass\n"
    )
    bound = module_bindings(tree).names
    called = qualified_names(tree.body[2:], bound, called=True)
    every = qualified_names(tree.body[2:], bound)
    assert {"torch.hypot", "torch.linalg.eig", "triton.jit", "triton.autotune"} <= called
    assert "torch.linalg" in called  # what the function's own import names
    assert not {"torch.lgamma", "torch.Tensor.cuda", "torch.Tensor", "torch"} & called
    assert {"torch.lgamma", "torch.Tensor.cuda"} <= every
    assert called <= every
