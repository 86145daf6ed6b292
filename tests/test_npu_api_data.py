"""The committed API data (migrator/data/torch_npu_api.json) and the target-release choice.

Reads the committed file only: no network, no wheels. The facts asserted here are the ones
ascend-facts.md section 8 and issue 14 state; regenerating from other wheels that changed
them fails here first.
"""

from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest

from migrator import data
from migrator.data import release
from migrator.data.generate import Sources, _cann_table, _params, _schema_params, render

ROOT = Path(__file__).resolve().parents[1]
RELEASES = ("2.6.0", "2.7.1.post2", "2.7.1.post11", "2.14.0")


def test_the_data_has_the_supported_releases_each_from_a_named_wheel() -> None:
    assert data.versions("torch_npu") == RELEASES
    assert data.versions("mx_driving") == ("26.1.0.post2", "26.2.0.post2")
    assert data.versions("torch") == ("2.7.1",)
    for package in ("torch_npu", "mx_driving", "torch"):
        for version in data.versions(package):
            wheel = data.wheel(package, version)
            assert wheel.filename.startswith(f"{package}-{version}-")
            assert wheel.filename.endswith(".whl")
            assert re.fullmatch(r"[0-9a-f]{64}", wheel.sha256)
            assert wheel.size > 1_000_000


def test_the_file_is_small_sorted_and_as_the_generator_writes_it() -> None:
    path = resources.files("migrator.data").joinpath("torch_npu_api.json")
    text = path.read_text(encoding="utf-8")
    assert len(text.encode()) < 5_000_000
    assert render(json.loads(text)) == text
    for version in RELEASES:
        for table in json.loads(text)["torch_npu"][version]["kernels"].values():
            assert table == sorted(set(table))


def test_the_json_ships_as_package_data() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    package_data = pyproject.split("[tool.setuptools.package-data]", 1)[1].split("\n[", 1)[0]
    assert re.search(r'^"\*" = \[[^\]]*"\*\.json"', package_data, re.M)


@pytest.mark.parametrize(
    ("version", "fused"),
    [
        ("2.6.0", {"AdamW"}),
        ("2.7.1.post2", {"AdamW"}),
        ("2.7.1.post11", {"Adam", "AdamW", "SGD"}),
        ("2.14.0", {"Adam", "AdamW", "SGD"}),
    ],
)
def test_fused_optimizer_kernels_by_release(version: str, fused: set[str]) -> None:
    assert data.fused_optimizers(version) == fused
    assert data.has_npu_kernel(version, "_fused_adamw_")
    assert data.has_npu_kernel(version, "_fused_adam_") == ("Adam" in fused)
    assert data.has_npu_kernel(version, "_fused_sgd_") == ("SGD" in fused)


def test_kernel_lookups_take_an_op_with_or_without_its_overload() -> None:
    assert data.has_npu_kernel("2.7.1.post11", "_fused_sgd_.tensor_lr")
    assert data.has_npu_kernel("2.7.1.post11", "_fused_sgd_")
    assert not data.has_npu_kernel("2.7.1.post2", "_fused_adamw_.tensor_lr")
    assert data.has_npu_kernel("2.7.1.post2", "mm")
    assert not data.has_npu_kernel("2.7.1.post2", "no_such_op")
    assert "npu_fusion_attention" in data.npu_custom_ops("2.7.1.post2")


@pytest.mark.parametrize("version", RELEASES)
def test_ops_without_an_npu_kernel_need_a_per_device_kernel(version: str) -> None:
    # hypot has CPU/CUDA kernels only (structured hypot.out); torch-npu registers none.
    assert data.lacks_npu_kernel(version, "hypot")
    assert not data.lacks_npu_kernel(version, "matmul")  # an NPU kernel
    assert not data.lacks_npu_kernel(version, "linalg_inv")  # composite: any device
    assert not data.lacks_npu_kernel(version, "unique_dim")  # registered for the NPU
    assert "hypot" in data.backend_ops() and "linalg_inv" not in data.backend_ops()


@pytest.mark.parametrize("version", RELEASES)
def test_names_popular_libraries_call_exist_on_every_release(version: str) -> None:
    assert data.has_name("torch_npu", version, "torch.npu", "random")
    assert data.has_name("torch_npu", version, "torch_npu.npu", "random")
    for op in ("npu_apply_adam_w", "npu_apply_adam"):
        assert data.has_name("torch_npu", version, "torch_npu", op)
    params = data.signature("torch_npu", version, "torch_npu", "npu_apply_adam_w")
    assert params is not None and params[:2] == ("beta1_power", "beta2_power")
    assert data.has_name("torch_npu", version, "torch_npu.npu.amp", "GradScaler")
    scaler = data.signature("torch_npu", version, "torch.npu.amp", "GradScaler")
    assert scaler is not None and scaler[0] == "init_scale"


def test_torch_271_lacks_the_newer_accelerator_apis() -> None:
    accelerator = data.names("torch", "2.7.1", "torch.accelerator")
    assert {"device_count", "current_device_index", "set_device_index"} <= accelerator
    assert "device_index" not in accelerator
    assert "memory" not in accelerator
    # Helpers imported from typing are not API.
    assert "Optional" not in accelerator


def test_torch_modules_the_migration_writes_are_recorded() -> None:
    recorded = data.modules("torch", "2.7.1")
    for module in ("torch.amp", "torch.cuda", "torch.distributed", "torch.backends.cudnn"):
        assert module in recorded
    assert "GradScaler" in data.names("torch", "2.7.1", "torch.amp")
    assert "init_process_group" in data.names("torch", "2.7.1", "torch.distributed")
    assert "allow_tf32" in data.names("torch", "2.7.1", "torch.backends.cudnn")
    assert data.signature("torch", "2.7.1", "torch.cuda", "set_device") == ("device",)


def test_the_torch_npu_modules_of_the_brief_are_recorded() -> None:
    for version in RELEASES:
        recorded = data.modules("torch_npu", version)
        for module in ("torch_npu", "torch_npu.npu", "torch_npu.optim", "torch_npu.contrib",
                       "torch_npu.profiler"):  # fmt: skip
            assert module in recorded
    assert "transfer_to_npu" in data.names("torch_npu", "2.7.1.post2", "torch_npu.contrib")
    with pytest.raises(KeyError, match="not recorded"):
        data.names("torch_npu", "2.7.1.post2", "torch_npu.nothing")
    with pytest.raises(KeyError, match=r"known: 2\.6\.0"):
        data.names("torch_npu", "9.9.9", "torch_npu")


@pytest.mark.parametrize("version", ("26.1.0.post2", "26.2.0.post2"))
def test_mx_driving_patcher_exports_the_builder(version: str) -> None:
    patcher = data.names("mx_driving", version, "mx_driving.patcher")
    assert {"default_patcher_builder", "PatcherBuilder", "Patcher"} <= patcher
    assert data.requires_torch("mx_driving", version) == "torch>=2.6.0,<2.9.0"


def test_torch_pins_and_cann_pairing() -> None:
    pins = {v: data.torch_npu_release(v).requires_torch for v in RELEASES}
    assert pins == {
        "2.6.0": "torch==2.6.0",
        "2.7.1.post2": "torch==2.7.1",
        "2.7.1.post11": "torch==2.7.1",
        "2.14.0": "torch==2.14.0.*",
    }
    assert data.torch_npu_release("2.14.0").torch_version == "2.14.0"
    cann = {v: data.torch_npu_release(v).cann for v in RELEASES}
    # post11's README table stops at post2 and names no CANN of its own.
    assert cann == {"2.6.0": "8.2.RC1", "2.7.1.post2": "8.5.0", "2.7.1.post11": None,
                    "2.14.0": "9.1.0"}  # fmt: skip
    assert data.cann_table()["2.7.1"] == ("8.3.RC1", "2.7.1")


# The 13 names on which migrator/target.py's `_TORCH_NPU_DEVICE_APIS` and the emulator's
# `transfer.CUDA_NAMES` disagreed (before this data): torch.npu has every one of them.
DISAGREEING = (
    "StreamContext", "amp", "caching_allocator_alloc", "caching_allocator_delete",
    "can_device_access_peer", "get_device_capability", "memory_snapshot",
    "reset_accumulated_memory_stats", "set_per_process_memory_fraction", "utilization",
    "device_of", "init", "is_initialized",
)  # fmt: skip


@pytest.mark.parametrize("version", RELEASES)
def test_mirrored_cuda_names_are_torch_cuda_names_torch_npu_has(version: str) -> None:
    mirrored = data.mirrored_cuda_names(version)
    assert set(DISAGREEING) <= mirrored
    assert {"synchronize", "set_device", "empty_cache", "manual_seed", "Stream"} <= mirrored
    # CUDA-only names stay out: no NCCL, NVTX or CUDA graphs under torch.npu.
    assert not {"nccl", "nvtx", "CUDAGraph", "jiterator", "get_arch_list"} & mirrored
    assert mirrored <= data.names("torch", "2.7.1", "torch.cuda")


def test_mirrored_cuda_names_follow_the_release() -> None:
    assert "ipc_collect" not in data.mirrored_cuda_names("2.6.0")
    assert "ipc_collect" in data.mirrored_cuda_names("2.7.1.post11")


def test_the_loader_imports_nothing_else_of_migrator() -> None:
    # The emulator reads this data without importing the static tool.
    source = (ROOT / "migrator" / "data" / "__init__.py").read_text(encoding="utf-8")
    imported = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]
    assert all(m is not None and m.split(".")[0] in sys.stdlib_module_names for m in imported)
    code = "import sys, migrator.data; print(sorted(m for m in sys.modules if 'migrator.' in m))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['migrator.data']"


# The generator's parsing helpers, on small inputs -------------------------------------


def test_sources_follow_imports_inside_the_wheel_and_skip_helpers() -> None:
    files = {
        "pkg/__init__.py": (
            "import os\nfrom typing import Optional\nimport numpy as np\n"
            "from .impl import *\nfrom pkg.impl import run as go\n"
            "os.environ['X'] = '1'\nif True:\n    flag, *rest = 1, 2\n_private = 1\n"
        ),
        "pkg/impl.py": "__all__ = ['run']\n__all__ += ['Thing']\n"
        "def run(a, *, b=1): pass\nclass Thing:\n    def __init__(self, x): pass\n"
        "def hidden(): pass\n",
        "pkg/sub/__init__.py": "",
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        for name, text in files.items():
            wheel.writestr(name, text)
    with zipfile.ZipFile(buffer) as wheel:
        exports = Sources(wheel).exports("pkg")
    assert exports == {
        "Thing": ["x"],
        "flag": None,
        "go": ["a", "*", "b"],
        "impl": None,
        "np": None,
        "rest": None,
        "run": ["a", "*", "b"],
        "sub": None,
    }


def test_parameters_are_listed_with_their_markers() -> None:
    func = ast.parse("def f(self, a, /, b=1, *args, c, **kw): pass").body[0]
    assert isinstance(func, ast.FunctionDef)
    assert _params(func.args, drop_first=False) == ["self", "a", "/", "b", "*args", "c", "**kw"]
    assert _params(func.args, drop_first=True) == ["a", "/", "b", "*args", "c", "**kw"]


def test_schema_parameters_are_read_from_a_native_function() -> None:
    schema = "f.out(Tensor[] self, int[2] size=[1, 2], *, Tensor(a!) out) -> Tensor(a!)"
    assert _schema_params(schema) == ["self", "size", "*", "out"]


def test_the_cann_table_carries_its_cann_version_down() -> None:
    metadata = (
        "## Ascend Auxiliary Software\n\ntext\n\n"
        "| CANN Version | Supported PyTorch Version | Supported Extension Version | Branch |\n"
        "|---|---|---|---|\n"
        "| CANN 8.5.0 | 2.7.1 | 2.7.1.post2 | v2.7.1-7.3.0 |\n"
        "|            | 2.6.0 | 2.6.0.post5 | v2.6.0-7.3.0 |\n"
        "## Next\n| CANN 1.0 | 1.0 | 1.0 | x |\n"
    )
    assert _cann_table(metadata) == {
        "2.7.1.post2": {"cann": "8.5.0", "torch": "2.7.1", "branch": "v2.7.1-7.3.0"},
        "2.6.0.post5": {"cann": "8.5.0", "torch": "2.6.0", "branch": "v2.6.0-7.3.0"},
    }


# The target release ---------------------------------------------------------------------


def test_the_default_is_the_newest_271_post_release() -> None:
    chosen = release.resolve()
    assert chosen.version == "2.7.1.post11" == data.default_torch_npu()
    assert chosen.reason.startswith("the default")


def test_an_explicit_release_wins_and_says_where_it_came_from() -> None:
    chosen = release.resolve(
        "2.6.0",
        explicit_origin="[tool.migrate] torch-npu",
        project_torch_npu="torch-npu==2.7.1.post2",
        project_torch="torch==2.7.1",
    )
    assert chosen == release.TargetRelease("2.6.0", "[tool.migrate] torch-npu 2.6.0")


def test_an_explicit_release_missing_from_the_data_is_an_error() -> None:
    with pytest.raises(release.UnknownRelease, match=r"--torch-npu 2\.7\.1\.post10: .*known"):
        release.resolve("2.7.1.post10")


def test_the_projects_torch_npu_pin_comes_next() -> None:
    chosen = release.resolve(project_torch_npu="torch_npu==2.7.1.post2", project_torch="==2.7.1")
    assert chosen.version == "2.7.1.post2"
    assert "torch-npu pin torch_npu==2.7.1.post2" in chosen.reason
    ranged = release.resolve(project_torch_npu="torch-npu>=2.6,<2.7")
    assert ranged.version == "2.6.0"


@pytest.mark.parametrize(
    ("torch", "expected"),
    [
        ("torch==2.7.1", "2.7.1.post11"),
        ("torch==2.7.1+cpu", "2.7.1.post11"),
        ("torch>=2.6,<2.7", "2.6.0"),
        ("torch~=2.14.0", "2.14.0"),
        ("2.6.0", "2.6.0"),
    ],
)
def test_then_the_newest_release_for_the_projects_torch_pin(torch: str, expected: str) -> None:
    chosen = release.resolve(project_torch=torch)
    assert chosen.version == expected
    assert "torch pin" in chosen.reason


@pytest.mark.parametrize("torch", ["torch>=2.0", "torch", "torch==2.9.0"])
def test_a_torch_requirement_that_picks_nothing_falls_to_the_default(torch: str) -> None:
    chosen = release.resolve(project_torch=torch, project_torch_npu="torch-npu")
    assert chosen.version == "2.7.1.post11"
    assert chosen.reason.startswith("the default")
    assert torch in chosen.reason
    assert "torch-npu requirement torch-npu pins nothing" in chosen.reason


def test_releases_can_be_given_instead_of_the_data() -> None:
    releases = {"2.7.1.post4": "2.7.1", "2.7.1.post9": "2.7.1", "2.8.0": "2.8.0"}
    assert release.resolve(releases=releases).version == "2.7.1.post9"
    assert release.resolve(project_torch="torch==2.8.0", releases=releases).version == "2.8.0"
    # Ordered as PEP 440 orders them (post11 after post9), also where one is not a release
    # number of the data file's form (a development release), which packaging then orders.
    releases = {"2.7.1.post11": "2.7.1", "2.7.1.post9": "2.7.1"}
    assert release.resolve(releases=releases).version == "2.7.1.post11"
    assert release.resolve("torch-npu>=2.7.1.post9", releases=releases).version == "2.7.1.post11"
    releases = {"2.7.1.post9": "2.7.1", "2.7.1.post10.dev1": "2.7.1"}
    assert release.resolve(releases=releases).version == "2.7.1.post10.dev1"


def test_the_npu_target_mirrors_the_cuda_names_of_the_data() -> None:
    from migrator.core.target import NPU

    assert NPU.device_apis == data.mirrored_cuda_names(data.default_torch_npu())
    assert set(DISAGREEING) <= NPU.device_apis
