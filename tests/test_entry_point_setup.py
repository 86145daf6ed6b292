"""NPU030's injected set-up, run for real: order of events, and no device stack needed."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from migrator.contract.rule import PythonRule, RuleOptions
from migrator.contract.trigger import FileView
from migrator.core.model import Outcome
from migrator.core.target import NPU
from migrator.engine.files import migrate_text
from migrator.engine.python import migrate_python
from migrator.engine.settings import Settings
from rules.entry_point_setup import EntryPointSetup
from tests.helpers import invoke, record_parses

SCRIPT = '''"""A training entry that builds its accelerator at import time."""
import os


def log(event):
    with open(os.environ["EVENT_LOG"], "a") as handle:
        handle.write(event + "\\n")


log("module code")


def train(loss):
    loss.backward()


if __name__ == "__main__":
    log("main block")
'''

FAKES = {
    "torch_npu/__init__.py": 'import fake_log\nfake_log.log("torch_npu")\n',
    "torch_npu/contrib/__init__.py": "",
    "torch_npu/contrib/transfer_to_npu.py": 'import fake_log\nfake_log.log("transfer_to_npu")\n',
    "mx_driving/__init__.py": "",
    "mx_driving/patcher.py": (
        "import fake_log\n"
        'fake_log.log("patcher imported")\n\n\n'
        "class _Patcher:\n"
        "    def __enter__(self):\n"
        '        fake_log.log("patches applied")\n'
        "        return self\n\n"
        "    def __exit__(self, *exc):\n"
        "        return False\n\n\n"
        "class _Builder:\n"
        "    def build(self):\n"
        "        return _Patcher()\n\n\n"
        "default_patcher_builder = _Builder()\n"
    ),
    "fake_log.py": (
        "import os\n\n\n"
        "def log(event):\n"
        '    with open(os.environ["EVENT_LOG"], "a") as handle:\n'
        '        handle.write(event + "\\n")\n'
    ),
}


def _migrated() -> str:
    settings = Settings(NPU, ("NPU030",), RuleOptions(patcher="mx-driving"))
    result = migrate_text("train.py", SCRIPT.encode(), settings)
    assert result.new_data is not None, "the script must be recognised as an entry"
    return result.new_data.decode()


def _run(tmp_path: Path, fakes: dict[str, str], *, ok: bool = True) -> tuple[list[str], str]:
    script = tmp_path / "train.py"
    script.write_text(_migrated())
    packages = tmp_path / "site"
    for name, text in fakes.items():
        path = packages / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    log = tmp_path / "events.log"
    log.touch()
    env = {**os.environ, "EVENT_LOG": str(log), "PYTHONPATH": str(packages)}
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=False
    )
    assert (done.returncode == 0) is ok, done.stderr
    return log.read_text().splitlines(), done.stderr


def test_set_up_runs_before_module_code_and_patches_before_main(tmp_path: Path) -> None:
    events, stderr = _run(tmp_path, FAKES)
    assert events == [
        "torch_npu",
        "transfer_to_npu",
        "patcher imported",
        "module code",
        "patches applied",
        "main block",
    ]
    assert stderr == ""


def _last_line(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


def test_without_the_runtime_the_script_stops_at_once_saying_what_to_do(tmp_path: Path) -> None:
    events, stderr = _run(tmp_path, {}, ok=False)
    assert events == [], "nothing of the script may run on a host without the runtime"
    last = _last_line(stderr)
    assert last.startswith("ImportError: torch_npu did not load: source CANN's set_env.sh")
    assert "torch-npu 2.7.1.post11, for torch 2.7.1" in last
    # One message of the tool's, after the cause; no warning that lets the script run on.
    assert stderr.count("did not load") == 1 and "Warning" not in stderr


@pytest.mark.parametrize("error", ["RuntimeError", "OSError"])
def test_a_broken_runtime_stops_the_script_with_its_cause(tmp_path: Path, error: str) -> None:
    broken = {**FAKES, "torch_npu/__init__.py": f'raise {error}("libhccl.so: not found")\n'}
    events, stderr = _run(tmp_path, broken, ok=False)
    assert events == []
    assert f"{error}: libhccl.so: not found" in stderr
    assert "set_env.sh" in _last_line(stderr)


def test_without_mx_driving_the_script_runs_unpatched_and_silent(tmp_path: Path) -> None:
    fakes = {name: text for name, text in FAKES.items() if not name.startswith("mx_driving")}
    events, stderr = _run(tmp_path, fakes)
    assert events == ["torch_npu", "transfer_to_npu", "module code", "main block"]
    assert stderr == "", "a missing optional patcher must not print on every rank"


def test_a_broken_mx_driving_is_not_taken_for_a_missing_one(tmp_path: Path) -> None:
    broken = {**FAKES, "mx_driving/patcher.py": "import mmcv_ops_missing\n"}
    events, stderr = _run(tmp_path, broken, ok=False)
    assert events == ["torch_npu", "transfer_to_npu"]
    assert "No module named 'mmcv_ops_missing'" in stderr


LIBRARY = (
    "import torch\n\n\ndef step(loss, optimizer):\n    loss.backward()\n    optimizer.step()\n"
)


@pytest.mark.parametrize(
    "text,may_act",
    [
        pytest.param(LIBRARY, False, id="library_with_training_only_in_functions"),
        pytest.param(LIBRARY + 'if __name__ == "__main__":\n    pass\n', True, id="main_block"),
        pytest.param(LIBRARY + "step(x, o)\nx.backward()\n", True, id="top_level_backward"),
        pytest.param(
            "from torch.autograd import backward as bw\n\nbw(loss)\n", True, id="aliased_call"
        ),
        pytest.param(
            "import torch\n\n\n@register(lambda: optimizer.step())\ndef f():\n    pass\n",
            True,
            id="decorator_runs_at_import",
        ),
        # A method named as a working call, on what cannot be the work's receiver or
        # module: torch's own __init__ calls `_rocm_init.initialize()` at import.
        pytest.param("from . import _rocm_init\n_rocm_init.initialize()\n", False, id="init"),
        pytest.param("import deepspeed\nengine = deepspeed.initialize(m)\n", True, id="ds"),
        pytest.param("import torch\nmodel.train()\nsched.step()\n", False, id="mode"),
        pytest.param("import torch\ntrainer.fit(m)\n", True, id="trainer_fit"),
        pytest.param("import torch\nself.Optim.step()\n", True, id="optim_step"),
        pytest.param("import torch\nx = dist.init_process_group('nccl')\n", False, id="ipg"),
        pytest.param(
            "import torch.distributed as dist\ndist.init_process_group('nccl')\n",
            True,
            id="dist_ipg",
        ),
    ],
)
def test_only_files_that_may_be_entries_take_the_whole_module_route(
    text: str, may_act: bool
) -> None:
    view = FileView("m.py", text, RuleOptions(), tree=ast.parse(text))
    assert EntryPointSetup.trigger.passes(view) is may_act
    if not may_act:
        full = migrate_python(text, "m.py", [EntryPointSetup], NPU, RuleOptions(), full=True)
        assert not full.changes and not full.warnings


def test_a_named_entry_is_decided_by_its_name() -> None:
    options = RuleOptions(entry_points=("train.py",))
    tree = ast.parse(LIBRARY)
    assert EntryPointSetup.trigger.passes(FileView("train.py", LIBRARY, options, tree=tree))
    assert not EntryPointSetup.trigger.passes(FileView("other.py", LIBRARY, options, tree=tree))


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "project"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


LAUNCHED = {
    "scripts/run.sh": "#!/bin/bash\nsrun python -m pkg.train --cfg a.yaml\n",
    "pkg/__init__.py": "",
    # Launched, but with no construct the rule would see: the launch line makes it an entry.
    "pkg/train.py": "import torch\nfrom pkg.engine import loop\n\nloop(torch.ones(1))\n",
    # Only imported: never set up, though it trains.
    "pkg/engine.py": "def loop(x):\n    x.sum().backward()\n",
}


def test_launched_module_is_an_entry_and_an_imported_one_is_not(tmp_path: Path) -> None:
    root = _project(tmp_path, LAUNCHED)
    result = invoke(str(root), "--allow-no-vcs", "--select", "NPU030", "--jobs", "1")
    assert result.exit_code == 0, result.output
    train = (root / "pkg/train.py").read_text()
    assert "import torch_npu.contrib.transfer_to_npu" in train
    assert "mx_driving" not in train
    assert (root / "pkg/engine.py").read_text() == LAUNCHED["pkg/engine.py"]
    assert "launched by scripts/run.sh:2: python -m" in result.output


HANDED_TO_PACKAGE = {
    # The launcher builds its command in an array, the module in a variable.
    "pkg/launcher/replica.sh": (
        '#!/bin/bash\nMODULE="pkg.rollout.entrance"\nCMD=(torchrun --nproc-per-node=8)\n'
        'CMD+=(-m "$MODULE")\n"${CMD[@]}"\n'
    ),
    "pkg/__init__.py": "",
    "pkg/rollout/__init__.py": "",
    # No torch here: the entry hands the work, and the device, to its package.
    "pkg/rollout/entrance.py": (
        "import sys\nfrom pkg.rollout.worker import run\n\n"
        'if __name__ == "__main__":\n    run(sys.argv)\n'
    ),
    "pkg/rollout/worker.py": "import torch\n\n\ndef run(argv):\n    torch.ones(1).cuda()\n",
    # Launched the same way but imports nothing of the project: left alone.
    "tools/convert.sh": "#!/bin/bash\nSCRIPT=tools.convert\npython -m $SCRIPT in.json\n",
    "tools/convert.py": 'import json\n\nif __name__ == "__main__":\n    print(json.dumps({}))\n',
}


def test_launched_module_that_calls_its_package_is_an_entry(tmp_path: Path) -> None:
    root = _project(tmp_path, HANDED_TO_PACKAGE)
    result = invoke(str(root), "--select", "NPU030", "--jobs", "1", "--allow-no-vcs")
    assert result.exit_code == 0, result.output
    assert "import torch_npu" in (root / "pkg/rollout/entrance.py").read_text()
    assert "launched by pkg/launcher/replica.sh:2: -m $MODULE" in result.output
    for rel in ("pkg/rollout/worker.py", "tools/convert.py"):
        assert (root / rel).read_text() == HANDED_TO_PACKAGE[rel]


def test_no_entry_overrides_a_launch_line(tmp_path: Path) -> None:
    root = _project(tmp_path, LAUNCHED)
    result = invoke(
        str(root), "--allow-no-vcs", "--select", "NPU030", "--no-entry", str(root / "pkg/train.py")
    )
    assert result.exit_code == 0, result.output
    assert (root / "pkg/train.py").read_text() == LAUNCHED["pkg/train.py"]


def test_patcher_only_where_the_project_imports_mmcv_or_when_asked(tmp_path: Path) -> None:
    files = {**LAUNCHED, "pkg/model.py": "from mmcv.ops import nms\n"}
    root = _project(tmp_path, files)
    assert invoke(str(root), "--allow-no-vcs", "--select", "NPU030").exit_code == 0
    assert "default_patcher_builder.build().__enter__()" in (root / "pkg/train.py").read_text()
    plain = _project(tmp_path / "plain", LAUNCHED)
    assert (
        invoke(
            str(plain), "--allow-no-vcs", "--select", "NPU030", "--patcher", "mx-driving"
        ).exit_code
        == 0
    )
    assert "from mx_driving.patcher import" in (plain / "pkg/train.py").read_text()
    none = _project(tmp_path / "none", files)
    assert (
        invoke(str(none), "--allow-no-vcs", "--select", "NPU030", "--patcher", "none").exit_code
        == 0
    )
    assert "mx_driving" not in (none / "pkg/train.py").read_text()


def test_patcher_without_transfer_to_npu_is_a_usage_error(tmp_path: Path) -> None:
    root = _project(tmp_path, LAUNCHED)
    result = invoke(str(root), "--allow-no-vcs", "--patcher", "mx-driving", "--no-transfer-to-npu")
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0
    assert "importing mx_driving imports transfer_to_npu" in result.output


# A module past the size from which NPU030 skips its plain-data statements.
_TABLE = "TABLE = {\n" + "".join(f"    ({i}, 'k{i}'): ({i}, {i} + 1, -{i}),\n" for i in range(900))


def _large(table_entry: str) -> str:
    return (
        "import torch\n\n\n"
        + _TABLE
        + f"    {table_entry}\n}}\n\n\n"
        + "def main():\n    return TABLE\n\n\n"
        + 'if __name__ == "__main__":\n    main()\n'
    )


@pytest.mark.parametrize(
    "entry,device",
    [
        pytest.param("'x': 1,", None, id="plain_data_is_skipped"),
        pytest.param("'x': 'cuda:1',", "names the device 'cuda:1'", id="device_string"),
        pytest.param("'x': '\\x63uda',", "names the device 'cuda'", id="escaped_device_string"),
        pytest.param("'x': torch.ones(1).cuda(),", "calls .cuda()", id="a_call"),
    ],
)
def test_a_large_modules_tables_are_read_for_what_the_rule_collects(
    entry: str, device: str | None
) -> None:
    text = _large(entry)
    assert len(text) > 32_768
    outcome = migrate_python(text, "tool.py", [EntryPointSetup], NPU, RuleOptions())
    messages = [finding.message for finding in outcome.findings]
    if device is None:
        assert messages == [] and outcome.text == text
    else:
        # A main block that reaches the device: an entry, set up, the table the reason.
        assert len(messages) == 1
        assert f"entry script (a main block, and the module {device})" in messages[0]


def _trainer_with_table(entry: str) -> str:
    return (
        '"""Train."""\nimport torch\n\n\n'
        + _TABLE
        + f"    {entry}\n}}\n\n\n"
        + "def main():\n    torch.cuda.synchronize()\n    loss = torch.ones(1)\n"
        + "    loss.backward()\n\n\n"
        + 'if __name__ == "__main__":\n    main()\n'
    )


def _all_rules() -> list[type]:
    from migrator.contract.rule import PythonRule
    from migrator.engine import registry

    loaded = registry.load()
    generic = loaded.profile("generic")
    assert generic is not None
    return [rule for rule in loaded.for_profile(generic) if issubclass(rule, PythonRule)]


@pytest.mark.parametrize("entry", ["'x': 1,", "'x': 'cuda:1',"])
def test_a_large_entrys_tables_are_stood_in_for_and_put_back(
    monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    from migrator.engine import python

    text = _trainer_with_table(entry)
    rules = _all_rules()
    parsed = record_parses(monkeypatch)
    fast = migrate_python(text, "train.py", rules, NPU, RuleOptions())
    assert "torch_npu" in fast.text and "torch.npu.synchronize()" in fast.text
    # A plain table is not parsed with LibCST; one that names the device is.
    stood_in = entry == "'x': 1,"
    assert (not any("TABLE = {" in code for code in parsed)) is stood_in
    assert any('__migrate_table_0__ = b"""' in code for code in parsed) is stood_in
    # Where a stand-in does not come back once, the module is parsed whole instead: the
    # same text and findings.
    monkeypatch.setattr(python, "restored", lambda code, stand_ins: None)
    plain = migrate_python(text, "train.py", rules, NPU, RuleOptions())
    assert plain.text == fast.text
    assert [str(f) for f in plain.findings] == [str(f) for f in fast.findings]


def _outside_bodies_by_definition(node: ast.AST) -> list[ast.AST]:
    """Every node under `node` (contexts left out), skipping function and class bodies."""
    found = [node]
    for name, value in ast.iter_fields(node):
        scoped = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        if scoped and name == "body":
            continue
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, ast.AST) and not isinstance(item, ast.expr_context):
                found += _outside_bodies_by_definition(item)
    return found


_MODULE_LEVEL = (
    "import torch\n"
    "@register(optimizer.step())\n"
    "def f(x=trainer.fit(m), *, y: 'cuda' = 1) -> None:\n"
    "    optimizer.step()\n"
    "class K(Base, metaclass=M):\n"
    "    def g(self):\n"
    "        loss.backward()\n"
    "if ok:\n"
    "    def h():\n"
    "        loss.backward()\n"
    "    run = lambda: opt.step()\n"
    "a = 1; b = optimizer.step()\n"
    "def one(x=optimizer.step()): return x.backward()\n"
)


def test_module_level_nodes_leave_out_every_function_and_class_body() -> None:
    from migrator.analysis.ast_lines import walk_outside_bodies

    tree = ast.parse(_MODULE_LEVEL)
    for statement in tree.body:
        walked = walk_outside_bodies(statement)
        assert sorted(map(id, walked)) == sorted(map(id, _outside_bodies_by_definition(statement)))
    calls = [
        ast.unparse(node)
        for statement in tree.body
        for node in walk_outside_bodies(statement)
        if isinstance(node, ast.Call)
    ]
    assert "loss.backward()" not in calls and "x.backward()" not in calls
    assert {"optimizer.step()", "trainer.fit(m)", "opt.step()"} <= set(calls)


@pytest.mark.parametrize(
    ("text", "works"),
    [
        pytest.param("def f():\n    optimizer.step()\n", False, id="in_a_body"),
        pytest.param("a = 1; b = optimizer.step()\n", True, id="second_statement_of_a_line"),
        pytest.param("def f(x=optimizer.step()):\n    pass\n", True, id="a_default"),
        pytest.param("def f(x=1): return optimizer.step()\n", False, id="a_one_line_body"),
        pytest.param("x = 'optimizer.step()'\nstep_size = 1\n", False, id="spelt_not_called"),
        pytest.param("if ok:\n    scaler.step(optimizer)\n", False, id="not_an_optimizer"),
        pytest.param("if ok:\n    optim.step()\n", True, id="in_a_block"),
        pytest.param("from torch.autograd import backward as bw\nbw(loss)\n", True, id="alias"),
        pytest.param("from torch.autograd import backward as bw\n", False, id="alias_unused"),
    ],
)
def test_the_gate_finds_work_only_in_module_level_code(text: str, works: bool) -> None:
    from rules.entry_point_setup import _may_work_at_top_level

    assert _may_work_at_top_level(ast.parse(text), text) is works


_MAIN = 'if __name__ == "__main__":\n    main()\n'


@pytest.mark.parametrize(
    ("body", "may"),
    [
        pytest.param("def main():\n    print('hello')\n", False, id="no_signal"),
        pytest.param("import torch\ndef main():\n    torch.zeros(2).sum()\n", False, id="torch"),
        pytest.param("def main():\n    loss.backward()\n", True, id="backward"),
        pytest.param("from accelerate import Accelerator as A\nmain = A\n", True, id="alias"),
        pytest.param("import torch.optim as O\ndef main():\n    O.SGD(p)\n", True, id="optim"),
        pytest.param("def main():\n    MyTrainer(cfg)\n", True, id="trainer"),
        pytest.param("from pkg.training import main\n", True, id="training_module"),
        pytest.param("def main():\n    runner.fit(m)\n", True, id="work_method"),
        pytest.param("def main():\n    x.to('cuda:1')\n", True, id="device_string"),
        pytest.param("def main():\n    model.cuda()\n", True, id="device_method"),
        pytest.param("from torch import cuda as c\ndef main():\n    c.sync()\n", True, id="cuda"),
        pytest.param("def main():\n    print('needs CUDA 12')\n", False, id="says_cuda"),
    ],
)
def test_a_main_block_file_is_passed_over_only_without_any_signal(body: str, may: bool) -> None:
    from rules.entry_point_setup import _may_be_entry

    text = body + _MAIN
    view = FileView("tool.py", text, RuleOptions(), tree=ast.parse(text))
    assert _may_be_entry(view) is may


def test_the_main_block_gate_turns_away_no_file_the_rules_act_on() -> None:
    """Every file with a main block in the installed accelerate, deepspeed and
    transformers packages that the gate turns away gets nothing from NPU030 or NPU090
    on the full path (no gate), and some are turned away."""
    import importlib.util

    from migrator.engine import registry
    from rules.entry_point_setup import _may_be_main_guard, _may_have_a_reason

    rules = [
        rule
        for rule in registry.load().rules
        if issubclass(rule, PythonRule) and rule.code in ("NPU030", "NPU090")
    ]
    assert len(rules) == 2
    turned = 0
    for package in ("accelerate", "deepspeed", "transformers"):
        # Found, not imported (deepspeed's import alone takes seconds).
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None
        root = Path(spec.origin).parent
        for path in sorted(root.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "__main__" not in text:
                continue
            tree = ast.parse(text)
            if not any(_may_be_main_guard(statement) for statement in tree.body):
                continue
            rel = path.relative_to(root).as_posix()
            if _may_have_a_reason(tree, FileView(rel, text, RuleOptions())):
                continue
            turned += 1
            outcome = migrate_python(text, rel, rules, NPU, RuleOptions(), full=True)
            assert outcome.text == text and not outcome.findings, rel
    assert turned > 0


def _helper(name: str) -> str:
    """A top-level function of 14 lines that spells nothing NPU030 or NPU090 collects."""
    adds = "".join(f"    total += values[{j}] * {j}\n" for j in range(12))
    return f"def {name}(values):\n    total = 0\n{adds}    return total\n\n\n"


_PAD = "    # " + "pad " * 70 + "\n"


def _quiet_entry(head: str = "", extra: str = "") -> str:
    """An entry script past the size from which NPU030 stands in quiet definitions."""
    helpers = "".join(_helper(f"helper_{i}") for i in range(100))
    return (
        f'"""Fit."""\nimport torch\n{head}\n\n{helpers}{extra}'
        + "def main():\n    torch.cuda.synchronize()\n    loss = torch.ones(1)\n"
        + "    loss.backward()\n\n\n"
        + _MAIN
    )


def _assert_fast_is_full(text: str, rules: list[type]) -> Outcome:
    """The fast path's text and findings are the full path's (returned)."""
    full = migrate_python(text, "train.py", rules, NPU, RuleOptions(), full=True)
    fast = migrate_python(text, "train.py", rules, NPU, RuleOptions())
    assert fast.text == full.text
    assert [str(f) for f in fast.findings] == [str(f) for f in full.findings]
    return full


def _entry_rules() -> list[type]:
    return [rule for rule in _all_rules() if rule.code in ("NPU030", "NPU090")]


@pytest.mark.parametrize("every", [True, False], ids=["after_region_edits", "entry_rules"])
def test_a_large_entrys_quiet_definitions_are_stood_in_for_and_put_back(
    monkeypatch: pytest.MonkeyPatch, every: bool
) -> None:
    from migrator.engine import python

    text = _quiet_entry()
    assert len(text) > 32_768
    # With every rule, NPU012 first rewrites main's torch.cuda call by region, so the
    # stand-ins are placed from the original's tree moved by that change.
    rules = _all_rules() if every else _entry_rules()
    full = migrate_python(text, "train.py", rules, NPU, RuleOptions(), full=True)
    parsed = record_parses(monkeypatch)
    fast = migrate_python(text, "train.py", rules, NPU, RuleOptions())
    assert "torch_npu" in fast.text
    assert fast.text == full.text
    assert [str(f) for f in fast.findings] == [str(f) for f in full.findings]
    whole = [code for code in parsed if code.startswith('"""Fit."""')]
    assert len(whole) == 1
    assert 'def helper_7(): b"""' in whole[0] and "# __migrate_table_" in whole[0]
    assert "total += values" not in whole[0]
    monkeypatch.setattr(python, "restored", lambda code, stand_ins: None)
    plain = migrate_python(text, "train.py", rules, NPU, RuleOptions())
    assert plain.text == fast.text
    assert [str(f) for f in plain.findings] == [str(f) for f in fast.findings]


@pytest.mark.parametrize(
    ("head", "extra", "kept"),
    [
        pytest.param("", "", None, id="quiet"),
        pytest.param(
            "from torch.optim import AdamW\n", "def build(p):\n" + _PAD + "    return AdamW(p)\n",
            "build", id="an_import_binds_a_signal",
        ),
        pytest.param("", "def place(x):\n" + _PAD + "    return x.to('cuda:1')\n", "place",
                     id="device_string"),
        pytest.param("", "def load():\n" + _PAD + "    import os\n", "load", id="imports"),
        pytest.param("", "def fit_once(m):\n" + _PAD + "    m.step()\n", "fit_once",
                     id="work_method"),
        pytest.param("", "def Loop(m):\n" + _PAD + "    return MyTrainer(m)\n", "Loop",
                     id="trainer"),
        pytest.param("", "def tune():\n" + _PAD + "    set_compile_mode(jit_compile=False)\n",
                     "tune", id="runtime_setting"),
        pytest.param("", "def place(x):\n" + _PAD + "    return x.to('\\x63uda:1')\n",
                     "place", id="escaped_device_string"),
        pytest.param("", "def place(x):\n" + _PAD + "    return x.to('cu\\\nda:1')\n",
                     "place", id="joined_device_string"),
        pytest.param("from torch.optim import AdamW\n",
                     "def build(p):\n" + _PAD + "    return \uff21damW(p)\n",
                     "build", id="fullwidth_name"),
        pytest.param("from torch.optim import *\n", "", "helper_0", id="signal_star_import"),
        pytest.param("from os.path import *\n", "", None, id="other_star_import"),
    ],
)  # fmt: skip
def test_only_definitions_that_spell_nothing_the_entry_rules_read_are_stood_in(
    head: str, extra: str, kept: str | None
) -> None:
    from migrator.formats.sources import split_lines
    from rules.entry_point_setup import _quiet_definitions

    text = _quiet_entry(head, extra + "\n\n")
    tree = ast.parse(text)
    quiet = _quiet_definitions(tree.body, split_lines(text), NPU)
    names = {getattr(statement, "name", None) for statement in tree.body}
    quiet_names = {getattr(tree.body[index], "name", None) for index in quiet}
    assert "main" not in quiet_names
    if kept is None:
        assert quiet_names == names - {"main", None}
    else:
        assert kept not in quiet_names
    rules = _entry_rules()
    _assert_fast_is_full(text, rules)


def test_the_statement_the_block_goes_before_is_never_stood_in() -> None:
    from migrator.formats.sources import split_lines
    from rules.entry_point_setup import _quiet_definitions

    # No import above the helpers: the set-up block goes before the first one, where
    # its report and suppression comment are read.
    text = '"""Fit."""\nfrom __future__ import annotations\n\n\n' + _helper("first") * 1
    text += _quiet_entry().split('"""Fit."""\n', 1)[1]
    tree = ast.parse(text)
    quiet = _quiet_definitions(tree.body, split_lines(text), NPU)
    assert 2 not in quiet and tree.body[2].name == "first"  # type: ignore[attr-defined]
    assert 4 in quiet


def test_a_leading_concatenation_with_an_f_string_moves_the_anchor_too() -> None:
    from migrator.formats.sources import split_lines
    from rules.entry_point_setup import _quiet_definitions

    # LibCST takes `"doc" f"{1}"` for a docstring (a JoinedStr for the stdlib): the
    # block goes before the definition after it, which is then never stood in.
    text = '"Fit. " f"{1}"\n\n\n' + _helper("first") + _quiet_entry().split('"""Fit."""\n', 1)[1]
    tree = ast.parse(text)
    quiet = _quiet_definitions(tree.body, split_lines(text), NPU)
    assert 1 not in quiet and tree.body[1].name == "first"  # type: ignore[attr-defined]
    rules = _entry_rules()
    _assert_fast_is_full(text, rules)


def test_an_import_a_region_rule_drops_is_kept_for_a_stood_in_definitions_use() -> None:
    # NPU021 rewrites wrap()'s MMDataParallel and asks to drop its import, by region;
    # unwrap() still uses the name, inside a definition the entry rules would stand in.
    head = "from mmcv.parallel import MMDataParallel\n"
    extra = (
        "def wrap(model):\n    return MMDataParallel(model, device_ids=[0])\n\n\n"
        "def unwrap(model):\n" + _PAD + "    if isinstance(model, MMDataParallel):\n"
        "        return model.module\n    return model\n\n\n"
    )
    text = _quiet_entry(head, extra)
    full = _assert_fast_is_full(text, _all_rules())
    assert "from mmcv.parallel import MMDataParallel" in full.text


def test_quiet_definitions_after_region_changes_move_by_them() -> None:
    from migrator.engine.python import _Moved, _moved_definitions
    from migrator.formats.sources import split_lines

    text = "import os\n\n\ndef a():\n    x = 1\n    return x\n\n\ndef b():\n    return 2\n"
    tree = ast.parse(text)
    lines = split_lines(text)

    def every(body: object, lines: object, target: object) -> frozenset[int]:
        return frozenset({1, 2})

    def spans(changes: list[tuple[int, int, list[str]]]) -> list[tuple[int, int]] | None:
        found = _moved_definitions(_Moved(tree, lines, changes), NPU, [every])
        return None if found is None else [(first, last) for first, last, _ in found]

    # may_stand_in needs nothing after a definition but blank lines or less indented code.
    assert spans([]) == [(4, 6), (9, 10)]
    # A line added inside a() moves b(); a() itself, changed, is parsed as it is.
    assert spans([(5, 5, ["    x = 1\n", "    y = 2\n"])]) == [(10, 11)]
    # A change to an import may change what the rules resolve: nothing is stood in.
    assert spans([(1, 1, ["import sys\n"])]) is None
