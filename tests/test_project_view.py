"""The project view: facts about the whole project, computed once per run, read by rules
through `ctx.project`, handed to worker processes and part of the cache's run key."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path
from typing import Any

import pytest

from migrator.core.project import DeviceSetting, Entry, Import, Pin, ProjectView
from migrator.engine import project
from migrator.engine.project import build
from migrator.engine.walk import walk
from tests.helpers import invoke


def _tree(root: Path, files: dict[str, str]) -> ProjectView:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    tree = walk(root)
    return build(tree.root, tree.files)


PYTHON_FILES = {
    name: "import os\n"
    for name in (
        "tools/train.py", "train.py", "pkg/__init__.py", "pkg/launch.py", "ds_train.py",
        "tools/eval.py", "dist.py", "not_an_entry.py", "demo.py", "other.py",
        "make_entry.py", "pkg/cli.py", "pkg/tool.py", "pkg/cfg.py", "scripts/local.py",
    )
}  # fmt: skip

RUN_SH = """\
#!/bin/bash
export X=1
CUDA_VISIBLE_DEVICES=0 python -u tools/train.py --cfg a.yaml
torchrun --nproc_per_node 8 train.py --lr 1
accelerate launch --config_file acc.yaml -m pkg.launch
deepspeed --num_gpus 8 ds_train.py \\
    --deepspeed ds.json
srun --ntasks 8 python $ROOT/tools/eval.py
python -m torch.distributed.run --nproc_per_node=2 dist.py
echo python not_an_entry.py
python -c "import not_an_entry"
# python not_an_entry.py
python3 local.py
"""


def test_launch_commands_in_shell_scripts_name_entries(tmp_path: Path) -> None:
    view = _tree(tmp_path, {**PYTHON_FILES, "scripts/run.sh": RUN_SH})
    assert [(e.path, e.line, e.how) for e in view.entries] == [
        ("tools/train.py", 3, "python"),
        ("train.py", 4, "torchrun"),
        ("pkg/launch.py", 5, "accelerate launch"),
        ("ds_train.py", 6, "deepspeed"),
        ("tools/eval.py", 8, "python"),
        ("dist.py", 9, "python -m torch.distributed.run"),
        # Not in the project root: relative to the script's own folder.
        ("scripts/local.py", 13, "python3"),
    ]
    assert view.entry("train.py") == Entry("train.py", "scripts/run.sh", 4, "torchrun")
    assert view.entry("train.py").reason == "scripts/run.sh:4: torchrun"  # type: ignore[union-attr]
    assert view.entry("not_an_entry.py") is None


SCRIPT_FOLDER_FILES = {
    name: "import os\n"
    for name in (
        "tools/train.py", "tools/fp16/train.py", "tools/test.py", "tools/eval.py",
        "tools/bench.py", "tools/deep.py", "tools/data/prep.py", "pkg/rollout/entrance.py",
        "pkg/policy/train.py", "pkg/launcher/run.py",
    )
}  # fmt: skip

DIST_TRAIN_SH = """\
#!/usr/bin/env bash
PYTHONPATH="$(dirname $0)/..":$PYTHONPATH \\
python -m torch.distributed.launch --nproc_per_node=$GPUS \\
    $(dirname "$0")/train.py $CONFIG --launcher pytorch
"""

FOLDER_FORMS_SH = """\
#!/usr/bin/env bash
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export DATA_DIR=$SCRIPT_DIR/data
python "$SCRIPT_DIR/test.py"
python ${BASH_SOURCE%/*}/eval.py
torchrun --nproc_per_node 2 "$(dirname "$(readlink -f "$0")")/bench.py"
python $DATA_DIR/prep.py
python $(dirname $0)/missing.py
python $OTHER/deep.py
"""

REPLICA_SH = """\
#!/bin/bash
if [ "$TYPE" == "rollout" ]; then
  DEFAULT_MODULE="pkg.rollout.entrance"
elif [ "$TYPE" == "policy" ]; then
  DEFAULT_MODULE="pkg.policy.train"
fi
MESSAGE="pkg.launcher.run"
LAUNCH_CMD=("torchrun" --nproc-per-node="$NGPU")
LAUNCH_CMD+=(
  -m "$DEFAULT_MODULE"
)
"${LAUNCH_CMD[@]}"
git commit -m "$MESSAGE"
python -m "$DEFAULT_MODULE"x
"""


def test_an_extension_less_script_is_read_by_its_shebang(tmp_path: Path) -> None:
    from migrator.engine import project

    launch = "#!/bin/bash\ntorchrun --nproc_per_node 8 train.py --lr 1\n"
    files = {"train.py": "import os\n", "launch": launch, "no_shebang": launch[12:]}
    view = _tree(tmp_path, files)
    assert [(e.path, e.line, e.source) for e in view.entries] == [("train.py", 2, "launch")]
    # An extension-less file over the size the view reads is not read as a script.
    (tmp_path / "big").write_bytes(launch.encode() + b"#" * project.MAX_BYTES)
    tree = walk(tmp_path)
    assert "big" in tree.files
    assert build(tree.root, tree.files).entries == view.entries
    texts = project._Texts(tmp_path)
    assert texts.head("launch", 2) == b"#!" and texts.head("big", 2) == b""
    assert texts.head("missing", 2) == b""


def test_every_script_pattern_of_the_shell_rules_is_read_as_a_script(tmp_path: Path) -> None:
    # The view names scripts by suffix without importing the lexer: the suffixes must be
    # the shell rules' patterns, neither fewer nor more.
    from migrator.formats.shell import SCRIPT_PATTERNS

    assert tuple(p.removeprefix("*") for p in SCRIPT_PATTERNS) == project.SHELL_SUFFIXES
    files = {"train.py": "import os\n"}
    files.update({f"run{p[1:]}": "torchrun train.py\n" for p in SCRIPT_PATTERNS})
    view = _tree(tmp_path, files)
    assert sorted(e.source for e in view.entries) == sorted(f"run{p[1:]}" for p in SCRIPT_PATTERNS)


def test_launch_commands_name_scripts_in_the_script_folder(tmp_path: Path) -> None:
    """`$(dirname "$0")/train.py` is the train.py beside the script, even when several
    files are named train.py; so are `${BASH_SOURCE%/*}` and `$SCRIPT_DIR` set from them."""
    files = {
        **SCRIPT_FOLDER_FILES,
        "tools/dist_train.sh": DIST_TRAIN_SH,
        "tools/fp16/dist_train.sh": DIST_TRAIN_SH,
        "tools/forms.sh": FOLDER_FORMS_SH,
    }
    view = _tree(tmp_path, files)
    assert sorted((e.path, e.source, e.line) for e in view.entries) == [
        ("tools/bench.py", "tools/forms.sh", 6),
        ("tools/data/prep.py", "tools/forms.sh", 7),
        # Not a known folder: the one file ending so, as before.
        ("tools/deep.py", "tools/forms.sh", 9),
        ("tools/eval.py", "tools/forms.sh", 5),
        ("tools/fp16/train.py", "tools/fp16/dist_train.sh", 3),
        ("tools/test.py", "tools/forms.sh", 4),
        ("tools/train.py", "tools/dist_train.sh", 3),
    ]


def test_a_module_variable_after_dash_m_names_each_module_it_holds(tmp_path: Path) -> None:
    view = _tree(tmp_path, {**SCRIPT_FOLDER_FILES, "pkg/launcher/replica.sh": REPLICA_SH})
    assert [(e.path, e.line, e.how) for e in view.entries] == [
        ("pkg/rollout/entrance.py", 3, "-m $DEFAULT_MODULE (DEFAULT_MODULE=pkg.rollout.entrance)"),
        ("pkg/policy/train.py", 5, "-m $DEFAULT_MODULE (DEFAULT_MODULE=pkg.policy.train)"),
    ]


# `-m` is read in the command it belongs to (the one shell lexer), not in its line: the
# old line scan missed the first three and took the last (a git message, after `;`).
COMMAND_SCOPED_SH = """\
ROLLOUT="pkg.rollout.entrance"
POLICY="pkg.policy.train"
RUN="pkg.launcher.run"
if python -m "$ROLLOUT"; then echo ok; fi
cd pkg; torchrun --nproc-per-node 2 -m ${POLICY}
(python -m $RUN)
X=1 python a.py; git commit -m $ROLLOUT
"""


def test_a_module_variable_is_read_in_its_own_command(tmp_path: Path) -> None:
    view = _tree(tmp_path, {**SCRIPT_FOLDER_FILES, "run.sh": COMMAND_SCOPED_SH})
    assert [(e.path, e.line) for e in view.entries] == [
        ("pkg/rollout/entrance.py", 1),
        ("pkg/policy/train.py", 2),
        ("pkg/launcher/run.py", 3),
    ]
    view = _tree(
        tmp_path / "only_git",
        {
            **SCRIPT_FOLDER_FILES,
            "run.sh": COMMAND_SCOPED_SH.splitlines()[0]
            + "\nX=1 python a.py; git commit -m $ROLLOUT\n",
        },
    )
    assert view.entries == ()


README = """\
# Demo

```bash
$ python demo.py --steps 2
```

```python
python other.py
```

```
python other.py
```
"""


def test_readme_shell_blocks_name_entries_other_blocks_do_not(tmp_path: Path) -> None:
    view = _tree(tmp_path, {**PYTHON_FILES, "README.md": README})
    assert view.entries == (Entry("demo.py", "README.md", 4, "python"),)


def test_makefile_and_package_scripts_name_entries(tmp_path: Path) -> None:
    files = {
        **PYTHON_FILES,
        "Makefile": "train:\n\t@python make_entry.py\n\necho:\n\techo python other.py\n",
        "pyproject.toml": '[project]\nname = "x"\n\n[project.scripts]\ncli = "pkg.cli:main"\n',
        "setup.py": (
            "from setuptools import setup\n\nsetup(\n"
            "    entry_points={'console_scripts': ['tool = pkg.tool:main']},\n)\n"
        ),
        "setup.cfg": "[options.entry_points]\nconsole_scripts =\n    cfg = pkg.cfg:main\n",
    }
    view = _tree(tmp_path, files)
    assert sorted((e.path, e.source, e.line, e.how) for e in view.entries) == [
        ("make_entry.py", "Makefile", 2, "python"),
        ("pkg/cfg.py", "setup.cfg", 3, "console_scripts cfg"),
        ("pkg/cli.py", "pyproject.toml", 5, "[project.scripts] cli"),
        ("pkg/tool.py", "setup.py", 4, "console_scripts tool"),
    ]


def test_mm_imports_are_found_without_importing(tmp_path: Path) -> None:
    view = _tree(
        tmp_path,
        {
            "a.py": "import os\n\nimport mmcv\nfrom mmdet.apis import init\nimport mmcv.ops\n",
            "b.py": 'NAME = "mmcv"  # a string, not an import\nfrom .mmdet3d import x\n',
            "c/d.py": "def f():\n    import mmdet3d.core as core\n",
            "broken.py": "import mmcv\ndef (\n",
        },
    )
    assert view.imports == (
        Import("mmcv", "a.py", 3),
        Import("mmdet", "a.py", 4),
        Import("mmdet3d", "c/d.py", 2),
    )
    assert view.imports_package("mmcv") and not view.imports_package("mmengine")


def test_requirement_pins_of_torch_packages(tmp_path: Path) -> None:
    view = _tree(
        tmp_path,
        {
            "requirements.txt": (
                "numpy\ntorch==2.1.0\n"
                'torchvision>=0.16,<0.17 ; platform_machine == "x86_64"\n'
                "# torch==9\nTorch_NPU==2.1.0.post3\n"
            ),
            "pyproject.toml": '[project]\nname = "x"\ndependencies = [\n  "torchaudio~=2.1",\n]\n',
        },
    )
    assert view.pins == (
        Pin("torchaudio", "~=2.1", "", "pyproject.toml", 4),
        Pin("torch", "==2.1.0", "", "requirements.txt", 2),
        Pin("torchvision", "<0.17,>=0.16", 'platform_machine == "x86_64"', "requirements.txt", 3),
        Pin("torch-npu", "==2.1.0.post3", "", "requirements.txt", 5),
    )
    (torch,) = view.pins_of("torch")
    assert torch.pinned_version == "2.1.0" and torch.allows("2.1.0") and not torch.allows("2.2")
    assert view.pins_of("torchvision")[0].pinned_version is None
    assert view.pins_of("torchaudio")[0].allows("2.4.1")


def test_config_values_that_name_cuda_devices(tmp_path: Path) -> None:
    view = _tree(
        tmp_path,
        {
            "configs/train.yaml": (
                "train:\n  device: cuda:0\n  eval_device: cpu\n"
                "load:\n  - path: a.pt\n    map_location: cuda\n"
            ),
            "configs/model.json": '{\n  "model": {\n    "init_device": "cuda:1"\n  }\n}\n',
            "run.toml": '[run]\nname = "cuda"\ndevice = "cuda"\n',
            "notes.yaml": "text: use cuda devices\n",
        },
    )
    assert view.device_settings == (
        DeviceSetting("configs/model.json", ("model", "init_device"), 3, "cuda:1"),
        DeviceSetting("configs/train.yaml", ("train", "device"), 2, "cuda:0"),
        DeviceSetting("configs/train.yaml", ("load", 0, "map_location"), 6, "cuda"),
        DeviceSetting("run.toml", ("run", "device"), 3, "cuda"),
    )
    assert view.device_settings[2].dotted == "load.0.map_location"


def test_the_view_is_frozen_and_picklable(tmp_path: Path) -> None:
    view = _tree(tmp_path, {**PYTHON_FILES, "scripts/run.sh": RUN_SH})
    assert pickle.loads(pickle.dumps(view)) == view
    with pytest.raises(AttributeError):
        view.entries = ()  # type: ignore[misc]


@pytest.mark.usefixtures("project_rule")
def test_rules_read_the_view_through_the_rule_context(tmp_path: Path) -> None:
    _tree(tmp_path, {"train.py": "import torch\n", "other.py": "import torch\n",
                     "run.sh": "torchrun --nproc_per_node 2 train.py\n"})  # fmt: skip
    result = invoke(str(tmp_path), "--select", "TST090", "--dry-run")
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if "TST090 warning" in line]
    assert len(warned) == 1 and "train.py:1:1: TST090" in warned[0], result.stderr
    assert "launched by run.sh:1: torchrun" in warned[0]


@pytest.mark.usefixtures("project_rule")
def test_worker_processes_get_the_view(tmp_path: Path) -> None:
    files = {f"m{number:02}.py": "import torch\n" for number in range(24)}
    _tree(tmp_path, {**files, "run.sh": "python m07.py\n"})
    result = invoke(str(tmp_path), "--select", "TST090", "--dry-run", "--jobs", "2")
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if "TST090 warning" in line]
    assert len(warned) == 1 and "m07.py:1:1: TST090" in warned[0], result.stderr


@pytest.mark.usefixtures("project_rule")
def test_a_changed_launch_script_rechecks_cached_files(tmp_path: Path) -> None:
    _tree(tmp_path, {"train.py": "import torch\n", "run.sh": "python other.py\n"})
    first = invoke(str(tmp_path), "--allow-no-vcs", "--select", "TST090", "--verbose")
    assert "TST090" not in first.stderr
    again = invoke(str(tmp_path), "--allow-no-vcs", "--select", "TST090", "--verbose")
    assert "cache: 1 file unchanged since a clean run, skipped" in again.stderr
    (tmp_path / "run.sh").write_text("python train.py\n")
    changed = invoke(str(tmp_path), "--allow-no-vcs", "--select", "TST090", "--verbose")
    assert "launched by run.sh:1: python" in changed.stderr


def test_mmcv_pins_from_requirements_and_install_docs(tmp_path: Path) -> None:
    view = _tree(
        tmp_path,
        {
            "requirements.txt": "mmcv-full>=1.4.8,<=1.6.0\n",
            "docs/install.md": (
                "```shell\npip install mmcv-full==1.4.0\n"
                "#  pip install mmcv-full==1.3.0 -f https://example.org\n```\n"
            ),
            "setup.sh": "pip install -U 'mmcv==1.7.2' mmdet==2.28.2\n",
        },
    )
    assert [(p.name, p.specifier, p.path, p.line) for p in view.pins] == [
        ("mmcv-full", "==1.4.0", "docs/install.md", 2),
        ("mmcv-full", "<=1.6.0,>=1.4.8", "requirements.txt", 1),
        ("mmcv", "==1.7.2", "setup.sh", 1),
    ]


def test_mmcv_npu_import_is_a_fact(tmp_path: Path) -> None:
    view = _tree(
        tmp_path,
        {
            "a.py": "from mmcv.device.npu import NPUDataParallel\n",
            "b.py": "from mmcv.device import npu\n",
        },
    )
    assert view.imports_package("mmcv.device.npu") and view.imports_package("mmcv")
    assert [(i.package, i.path) for i in view.imports if i.package == "mmcv.device.npu"] == [
        ("mmcv.device.npu", "a.py"),
        ("mmcv.device.npu", "b.py"),
    ]


def test_mmcv_config_fp16_own_inherited_and_inheriting(tmp_path: Path) -> None:
    view = _tree(
        tmp_path,
        {
            "configs/_base_/schedule.py": "optimizer = dict(type='AdamW', lr=1e-4)\n",
            "configs/_base_/amp.py": "fp16 = dict(loss_scale=512.0)\n",
            "configs/model_fp16.py": "_base_ = ['./_base_/schedule.py']\n\nfp16 = dict()\n",
            "configs/child.py": "_base_ = './_base_/amp.py'\n",
            "configs/plain.py": "_base_ = ['./_base_/other.py']\nfp16 = None\n",
            "configs/hook.py": "optimizer_config = dict(type='Fp16OptimizerHook')\n",
        },
    )
    found = {c.path: (c.source, c.line, c.how, c.inherited) for c in view.config_fp16}
    assert found == {
        "configs/_base_/amp.py": ("configs/_base_/amp.py", 1, "fp16 = ...", False),
        "configs/_base_/schedule.py": ("configs/model_fp16.py", 3, "fp16 = ...", True),
        "configs/child.py": ("configs/_base_/amp.py", 1, "fp16 = ...", False),
        "configs/hook.py": (
            "configs/hook.py",
            1,
            "optimizer_config = dict(type='Fp16OptimizerHook', ...)",
            False,
        ),
        "configs/model_fp16.py": ("configs/model_fp16.py", 3, "fp16 = ...", False),
    }
    assert view.fp16_of_config("configs/plain.py") is None


def test_mmcv_config_settings_in_any_statement_shape_are_read(tmp_path: Path) -> None:
    """The line pre-check before the parse keeps every way a module-level statement can
    assign the names (after a `;`, in parentheses, after a continued line), and drops
    files that only mention them."""
    view = _tree(
        tmp_path,
        {
            "configs/semi.py": "x = 1; fp16 = dict(loss_scale=512.0)\n",
            "configs/paren.py": "(fp16) = dict()\n",
            "configs/cont.py": "x = 1; \\\nfp16 = dict()\n",
            "configs/child.py": "_base_ = ['./paren.py']\n",
            "configs/mention.py": "print('fp16', _base_)\nif fp16 == 1:\n    pass\n",
            "configs/nested.py": "if True:\n    fp16 = dict()\n",
        },
    )
    found = {c.path: (c.source, c.line) for c in view.config_fp16}
    assert found == {
        "configs/semi.py": ("configs/semi.py", 1),
        "configs/paren.py": ("configs/paren.py", 1),
        "configs/cont.py": ("configs/cont.py", 2),
        "configs/child.py": ("configs/paren.py", 1),
    }


def test_npu_grad_scalers_are_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    real = ast.parse

    def recorded(source: str, *args: Any, **kwargs: Any) -> ast.Module:
        parsed.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", recorded)
    view = _tree(
        tmp_path,
        {
            "a.py": "import torch\n\nscaler = torch.npu.amp.GradScaler()\n",
            "b.py": "import torch\nscaler = torch.amp.GradScaler('npu')\n",
            "c.py": "from torch.cuda.amp import GradScaler\ns = GradScaler()\n",
            "d.py": "from torch_npu.npu.amp import GradScaler as S\n\n\ns = S()\n",
            "e.py": "import torch_npu.npu.amp as na\ns = na.GradScaler()\n",
            "f.py": "from torch import npu\ns = npu.amp.GradScaler()\n",
            "g.py": "import torch\ndef step(inputs):\n    s = torch.amp.GradScaler()\n",
        },
    )
    # c.py: a GradScaler imported by name from torch.cuda.amp becomes torch's own (NPU012).
    found = sorted((s.path, s.line) for s in view.npu_grad_scalers)
    assert found == [("a.py", 3), ("d.py", 4), ("e.py", 2), ("f.py", 2)]
    # A file that spells neither the word "npu" nor torch_npu names none: it is not parsed
    # for one ("inputs" holds "npu").
    assert not any("torch.cuda.amp import GradScaler" in source for source in parsed)
    assert not any("def step(inputs)" in source for source in parsed)


@pytest.mark.parametrize(
    "data",
    [
        b"_base_ = ['../a.py']\n",
        b"x = 1; fp16 = dict(loss_scale=512.)\r\n",
        b"  (optim_wrapper) = dict(type='AmpOptimWrapper')\n",
        b"if fp16 == 1:\n    pass\n",
        b"print('fp16 = on')\nfp16\n= 2\n",
        b"optimizer_config=dict()",
        b"y = fp16_enabled\n",
        b"",
    ],
)
def test_config_names_are_searched_on_their_lines_as_the_regex_searches(data: bytes) -> None:
    assert project._assigns_config_name(data) is (project._CONFIG_NAME.search(data) is not None)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"fp16 = dict()", True),
        (b"optimizer_config = dict(type='Fp16OptimizerHook')", True),
        (b"# FP16", True),
        (b"x = 'fP16'", True),
        (b"p16 = 1", False),
        (b"P16", False),
        (b"xp16 yP16", False),
        (b"f p16", False),
        (b"fp1 6", False),
        (b"", False),
        (b"xp16 then fp16", True),
    ],
)
def test_fp16_pre_check_reads_fp16_in_any_case(data: bytes, says: bool) -> None:
    """The config pre-check finds "fp16" in any case without copying the file."""
    assert project._says_fp16(data) is says
    assert says is (b"fp16" in data.lower())
