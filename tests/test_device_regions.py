"""`device_regions.region`'s one-walk pre-check (`_mentions_devices`) never turns away an
`if` chain or `assert` the full decision would leave alone: on samples of every kind the
module decides and on every `if` and `assert` of a real corpus (the installed accelerate
package's files that mention CUDA: 2,000 of them, about 100 regions), the decision is the
same with the pre-check and without it."""

from __future__ import annotations

import ast
from pathlib import Path

import accelerate
import libcst as cst
import pytest

from migrator.analysis import device_regions
from migrator.analysis.cst_helpers import dotted_name
from migrator.analysis.cst_walk import find_all
from migrator.contract.rule import RuleOptions
from migrator.core.target import NPU

# A name bound by an import: resolving it is the only way to see the device.
ALIASES = {"ok": "torch.cuda.is_available", "has_npu": "torch_npu.npu.is_available"}


def _resolve(node: cst.BaseExpression) -> str | None:
    name = dotted_name(node)
    if name is None:
        return None
    head, dot, rest = name.partition(".")
    if head == "torch":
        return name
    return ALIASES[head] + dot + rest if head in ALIASES else None


SAMPLES = [
    "if torch.npu.is_available():\n    x = 1\n",
    "if ok():\n    import flash_attn\n",
    "if has_npu():\n    pass\nelif x:\n    pass\n",
    'if x.device.type == "NPU:0":\n    pass\n',
    'if backend == "hccl":\n    pass\n',
    'if hasattr(torch, "npu"):\n    pass\n',
    'if d.startswith("npu"):\n    pass\n',
    'if device == "cuda":\n    raise ValueError("only cuda")\n',
    "if torch.version.cuda:\n    load_inline(src)\n",
    'if a:\n    pass\nelif device != "cuda":\n    pass\n',
    "if config.enable_cuda_graph and x.is_cuda:\n    pass\n",
    'assert x.device.type == "cuda", "must be on a cuda device"\n',
    "assert ok()\n",
    "if flag:\n    torch.cuda.synchronize()\n",
    "assert x > 0\n",
]


Decision = device_regions.Region | None


def _decisions(code: str) -> list[tuple[Decision, Decision]]:
    module = cst.parse_module(code)
    nodes: list[cst.CSTNode] = [*find_all(module, cst.If), *find_all(module, cst.Assert)]
    found: list[tuple[Decision, Decision]] = []
    for node in nodes:
        checked = device_regions.region(node, _resolve, NPU)
        found.append((checked, _unchecked(node)))
    return found


def _unchecked(node: cst.CSTNode) -> Decision:
    real = device_regions._mentions_devices
    device_regions._mentions_devices = lambda *args: True
    try:
        return device_regions.region(node, _resolve, NPU)
    finally:
        device_regions._mentions_devices = real


def test_the_samples_are_decided_as_without_the_pre_check() -> None:
    decided = [pair for code in SAMPLES for pair in _decisions(code)]
    assert all(checked == unchecked for checked, unchecked in decided)
    # Most samples are regions: the pre-check let them through.
    assert sum(checked is not None for checked, _ in decided) >= 10


FILES = sorted(
    path
    for path in Path(accelerate.__file__).parent.rglob("*.py")
    if "cuda" in path.read_text(encoding="utf-8", errors="replace")
)


def test_a_real_corpus_is_decided_as_without_the_pre_check() -> None:
    regions = 0
    for path in FILES:
        try:
            decided = _decisions(path.read_text(encoding="utf-8"))
        except cst.ParserSyntaxError:
            continue
        mismatched = [pair for pair in decided if pair[0] != pair[1]]
        assert not mismatched, path
        regions += sum(checked is not None for checked, _ in decided)
    assert len(FILES) > 20 and regions > 50


@pytest.mark.parametrize(
    ("test", "mentions"),
    [("flag", False), ("x > 0", False), ("ok()", True), ("d == 'Cuda'", True), ("self.npu", True)],
)
def test_the_pre_check_reads_names_through_imports_and_strings_in_any_case(
    test: str, mentions: bool
) -> None:
    tests = [cst.parse_expression(test)]
    assert device_regions._mentions_devices(tests, _resolve, NPU) is mentions


def _chain_code(links: int) -> str:
    """An `if` chain that tests the device but is no region at its head; an `elif` that
    raises unless the device is CUDA heads a chain that is one."""
    code = 'if kind == "a":\n    x = 1\n'
    for index in range(links):
        test, body = [
            (f'kind == "k{index}"', f"x = {index}"),
            ("torch.cuda.is_available() and big", f"x = {index}"),
            ('device != "cuda"', 'raise ValueError("cuda only")'),
            (f"isinstance(v, torch.cuda.Stream{index})", f"x = {index}"),
        ][index % 4]
        code += f"elif {test}:\n    {body}\n"
    return code + "else:\n    x = -1\n"


@pytest.mark.parametrize("links", [1, 4, 30])
def test_each_elif_of_a_chain_is_decided_with_its_head_as_region_decides_it(links: int) -> None:
    module = cst.parse_module(_chain_code(links))
    head = next(iter(find_all(module, cst.If)))
    chain = list(find_all(module, cst.If))
    decisions: device_regions.Decisions = {}
    assert device_regions.decided(decisions, head, _resolve, NPU) is None
    kinds = set()
    for link in chain:
        assert decisions[id(link)][0] is link
        alone = device_regions.region(link, _resolve, NPU)
        assert decisions[id(link)][1] == alone
        assert device_regions.decided(decisions, link, _resolve, NPU) == alone
        kinds.add(None if alone is None else alone.kind)
    # The suffixes differ: some leave the chain alone, some do not.
    assert len(kinds) == 2 or links == 1


def test_a_long_chain_reads_each_link_once(monkeypatch: pytest.MonkeyPatch) -> None:
    module = cst.parse_module(_chain_code(200))
    head = next(iter(find_all(module, cst.If)))
    assert device_regions.region(head, _resolve, NPU) is None
    reads = []
    real = device_regions.npu_aware_test

    def counted(*args: object) -> str | None:
        reads.append(args[0])
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(device_regions, "npu_aware_test", counted)
    decisions: device_regions.Decisions = {}
    device_regions.decided(decisions, head, _resolve, NPU)
    assert len(decisions) == 201
    assert len(reads) == len({id(test) for test in reads}) <= 201


# The stdlib foresight NPU077 gates its regions with (`may_leave_alone`): code, and whether
# it may be left alone (each True case is one of `region`'s paths, and the rule reports it).
FORESIGHT = [
    ("if is_torch_npu_available():\n    x = x.npu()\nelse:\n    x = x.cuda()\n", True),
    # LibCST spells a keyword as a Name, which `npu_aware_test` reads.
    ("if check(npu=True):\n    x = x.cuda()\n", True),
    (
        "def f(x):\n    # only for CUDA: a fused kernel\n    if torch.cuda.is_available():\n"
        "        x = x.cuda()\n    return x\n",
        True,
    ),
    ('if device != "cuda":\n    raise ValueError("cuda only")\n', True),
    ('if config.use_cuda_graph and device == "cuda":\n    x = x.cuda()\n', True),
    ("if torch.cuda.is_available():\n    from torch.utils.cpp_extension import load\n", True),
    ("if torch.cuda.is_available():\n    ext = cpp_extension.load('k', ['k.cu'])\n", True),
    ("if torch.cuda.is_available():\n    import triton\n", True),
    ("if torch.version.cuda:\n    x = x.cuda()\n", True),
    ('assert x.device.type == "cuda", "on cuda"\n', True),
    ("def f(x):\n    if torch.cuda.is_available():\n        x = x.cuda()\n    return x\n", False),
    ('if torch.cuda.is_available():\n    print("cuda")\nelif x:\n    pass\n', False),
    ("assert x.is_cuda\n", False),
    ("assert torch.cuda.device_count() > 1, 'needs two cuda devices'\n", False),
]


@pytest.mark.parametrize(("code", "may"), FORESIGHT)
def test_npu077s_stdlib_foresight_lets_through_what_it_reports_and_little_else(
    code: str, may: bool
) -> None:
    """Where the foresight says no the rule reports nothing, on the fast path as on the
    full one; where it says yes the rule reports there (the foresight is not loose)."""
    from migrator.analysis.bindings import module_bindings
    from migrator.engine.python import migrate_python
    from rules.device_specific_branch import DeviceSpecificBranch

    text = "import torch\nfrom torch.utils import cpp_extension\n" + code
    tree = ast.parse(text)
    bindings = module_bindings(tree).names
    foreseen = device_regions.may_leave_alone(tree.body[2:], bindings, NPU, text)
    assert foreseen is may
    outcomes = [
        migrate_python(text, "m.py", [DeviceSpecificBranch], NPU, RuleOptions(), full=full)
        for full in (True, False)
    ]
    reported = [[f.code for f in outcome.findings] for outcome in outcomes]
    assert reported[0] == reported[1] == (["NPU077"] if may else [])
    # Without its source the foresight assumes a comment may say "CUDA only".
    assert device_regions.may_leave_alone(tree.body[2:], bindings, NPU) or not may
