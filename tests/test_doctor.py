"""`migrate doctor` on fake Ascend hosts: every probe goes through the `Host` seam, so a
temporary folder stands for `/`, stub executables for npu-smi and the interpreter, and a
fake site-packages for the installed Python stack.

The fake site-packages is probed by a real interpreter subprocess, started with `-S` so it
sees only PYTHONPATH (the fake packages), never this environment's torch.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from migrator.cli import main
from migrator.doctor.checks import run_checks
from migrator.doctor.context import Options
from migrator.doctor.host import Host
from migrator.doctor.model import JSON_SCHEMA, Report, Status
from migrator.doctor.project import pending
from migrator.doctor.versions import ascend_key

TOOLKIT = "/usr/local/Ascend/ascend-toolkit/latest"

# After the `npu-smi info` example of Ascend's npu-smi reference ("查询基本信息",
# https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_007.html):
# a header with the tool and driver versions, then two rows per NPU (NPU/Name/Health/Power/
# Temp, then Chip/Bus-Id/AICore/Memory). Health is OK, Warning, Alarm, Critical or UNKNOWN.
NPU_SMI_INFO_HEAD = """\
+------------------------------------------------------------------------------------------------+
| npu-smi {version:<25}Version: {version:<53}|
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
"""
NPU_SMI_INFO_ROW = (
    "| {npu:<5} {name:<19} | {health:<13} | {power:<11} {temp:<17} {pages:<21}|\n"
    "| {chip:<25} | {bus:<13} | {aicore:<11} {memory:<17} {hbm:<21}|\n"
    "+===========================+===============+"
    "====================================================+\n"
)
ROW_VALUES = {
    "name": "910B3", "power": "93.6", "temp": "37", "pages": "0    / 0", "chip": "0",
    "aicore": "0", "memory": "0    / 0", "hbm": "3378 / 65536",
}  # fmt: skip
# `npu-smi info -l` (the same reference's device list): a total, then one block per card.
NPU_SMI_LIST_HEAD = "\tTotal Count                    : {count}\n"
NPU_SMI_LIST_CARD = """
\tNPU ID                         : {npu}
\tProduct Name                   : Ascend910
\tSerial Number                  : 033VNY10M{npu:04d}
\tChip Count                     : 1
"""

# The toolkit's install record, at the path and with the `version=` key that Ascend's
# "File Paths" page gives (https://www.hiascend.com/document/detail/en/canncommercial/800/
# softwareinst/instg/instg_0044.html): latest/<arch>-linux/ascend_toolkit_install.info.
INSTALL_INFO = """\
package_name=Ascend-cann-toolkit
version={version}
arch=aarch64
os=linux
path=/usr/local/Ascend/ascend-toolkit/{version}/aarch64-linux
"""
SET_ENV = """\
export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:${LD_LIBRARY_PATH}
"""

# The real messages of a failing `import torch_npu` (issue 17, ascend-facts.md).
NO_HCCL = "libhccl.so: cannot open shared object file: No such file or directory"
UNDEFINED = (
    "/usr/local/lib/python3.11/site-packages/torch_npu/lib/libtorch_npu.so: undefined symbol: "
    "_ZNK3c1010TensorImpl15incref_pyobjectEv"
)
NO_C10 = "libc10.so: cannot open shared object file: No such file or directory"
NO_AVCODEC = "libavcodec.so.58: cannot open shared object file: No such file or directory"

TRAIN_PY = """\
import decord
import torch


def main():
    model = torch.nn.Linear(2, 2).cuda()
    frames = decord.VideoReader("clip.mp4")
    return model, frames


if __name__ == "__main__":
    main()
"""
TRAIN_SH = """\
#!/bin/bash
export WANDB_MODE=offline
accelerate launch --num_processes {processes} train.py
"""
ACCELERATE_YAML = "compute_environment: LOCAL_MACHINE\nnum_machines: 1\nnum_processes: 8\n"


@dataclass
class Fake:
    """A healthy Ascend host (8 NPUs, CANN 8.2.RC1, driver 25.2.0, torch 2.6.0 + torch-npu
    2.6.0) with a migrated project; tests seed one fault each."""

    tmp: Path
    root: Path
    bin: Path
    site: Path
    project: Path
    env: dict[str, str] = field(default_factory=dict)
    options: Options = field(default_factory=Options)

    def executable(self, name: str, text: str) -> None:
        path = self.bin / name
        path.write_text(text)
        path.chmod(0o755)

    def package(self, name: str, version: str, init: str = "", module: str | None = None) -> None:
        module = module or name.replace("-", "_")
        (self.site / module).mkdir(parents=True, exist_ok=True)
        (self.site / module / "__init__.py").write_text(init)
        info = self.site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")

    def remove(self, name: str) -> None:
        for path in self.site.glob(f"{name.replace('-', '_')}-*.dist-info"):
            for child in path.iterdir():
                child.unlink()
            path.rmdir()

    def npu_smi(self, npus: int = 8, driver: str = "25.2.0", health: str = "OK") -> None:
        info = NPU_SMI_INFO_HEAD.format(version=driver) + "".join(
            NPU_SMI_INFO_ROW.format(
                npu=i, health=health if i == 0 else "OK", bus=f"0000:C{i}:00.0", **ROW_VALUES
            )
            for i in range(npus)
        )
        listed = NPU_SMI_LIST_HEAD.format(count=npus) + "".join(
            NPU_SMI_LIST_CARD.format(npu=i) for i in range(npus)
        )
        (self.tmp / "npu-smi.info").write_text(info)
        (self.tmp / "npu-smi.list").write_text(listed)
        self.executable(
            "npu-smi",
            f"""#!/bin/sh
[ "$1" = info ] || exit 1
if [ "$2" = -l ]; then cat {self.tmp}/npu-smi.list; else cat {self.tmp}/npu-smi.info; fi
""",
        )

    def report(self, model: Path | None = None, data: Path | None = None) -> Report:
        host = Host(self.env, self.root, python=str(self.bin / "python"))
        options = replace(self.options, project=self.project, model=model, data=data)
        return run_checks(host, options)


def finding(report: Report, check_id: str) -> tuple[Status, str, str | None]:
    found = [f for f in report.findings if f.id == check_id]
    assert len(found) == 1, [f.id for f in report.findings]
    return found[0].status, found[0].evidence, found[0].fix


def folders(base: Path, parts: tuple[str, ...]) -> Path:
    for part in parts:
        target = base / part
        if part.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("{}\n")
    return base


MODEL = ("transformer/", "vae/", "text_encoder/", "scheduler/", "model_index.json")
DATA = ("meta/info.json", "meta/episodes.jsonl", "meta/tasks.jsonl", "data/", "videos/")


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small CUDA project after `migrate`: `migrate --check` has nothing left to do."""
    project = tmp_path_factory.mktemp("project")
    (project / "train.py").write_text(TRAIN_PY)
    (project / "scripts").mkdir()
    (project / "scripts/train.sh").write_text(TRAIN_SH.format(processes=8))
    (project / "configs").mkdir()
    (project / "configs/accelerate.yaml").write_text(ACCELERATE_YAML)
    entry = str(project / "train.py")
    # The patcher is asked for, so the set-up block imports mx_driving (the checks of an
    # optional patcher read that block); a project without mmcv does not get it by default.
    args = [str(project), "--entry", entry, "--patcher", "mx-driving", "--no-cache", "--quiet"]
    args.append("--allow-no-vcs")
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    assert "import torch_npu" in (project / "train.py").read_text()
    return project


@pytest.fixture
def fake(tmp_path: Path, migrated: Path) -> Fake:
    root = tmp_path / "root"
    bin_ = tmp_path / "bin"
    site = tmp_path / "site"
    for folder in (root, bin_, site):
        folder.mkdir()
    project = tmp_path / "project"
    for path in migrated.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            (project / path.relative_to(migrated)).parent.mkdir(parents=True, exist_ok=True)
            (project / path.relative_to(migrated)).write_bytes(path.read_bytes())
    fake = Fake(tmp_path, root, bin_, site, project)
    fake.executable("python", f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    fake.npu_smi()
    for package, version in (("torch", "2.6.0"), ("torch-npu", "2.6.0"), ("torchvision", "0.21.0")):
        fake.package(package, version)
    fake.package("decord", "0.6.0")
    fake.package("accelerate", "1.2.1")
    fake.package("mx-driving", "26.2.0.post2", module="mx_driving")
    (site / "mx_driving/patcher.py").write_text("default_patcher_builder = object()\n")
    toolkit = root / TOOLKIT.lstrip("/")
    (toolkit / "lib64").mkdir(parents=True)
    (toolkit / "aarch64-linux").mkdir()
    (toolkit / "aarch64-linux/ascend_toolkit_install.info").write_text(
        INSTALL_INFO.format(version="8.2.RC1")
    )
    (toolkit.parent / "set_env.sh").write_text(SET_ENV)
    (root / "dev").mkdir()
    for index in range(8):
        (root / "dev" / f"davinci{index}").touch()
    (root / "dev/davinci_manager").touch()
    fake.env = {
        "PATH": f"{bin_}:/usr/bin:/bin",
        "HOME": "/root",
        "PYTHONPATH": str(site),
        "ASCEND_TOOLKIT_HOME": TOOLKIT,
        "LD_LIBRARY_PATH": f"{TOOLKIT}/lib64:/usr/local/Ascend/driver/lib64",
    }
    return fake


def test_the_migrated_project_has_nothing_left_to_migrate(migrated: Path) -> None:
    found = pending(migrated)
    assert (found.files, found.edits, found.failed) == (0, 0, 0)


def test_healthy_host_is_all_green_and_exits_0(fake: Fake, tmp_path: Path) -> None:
    model = folders(tmp_path / "model", MODEL)
    data = folders(tmp_path / "data", DATA)
    report = fake.report(model=model, data=data)
    bad = [
        (f.id, f.status.value, f.evidence)
        for f in report.findings
        if f.status not in (Status.OK, Status.SKIP)
    ]
    assert bad == []
    assert report.exit_code == 0
    ids = {f.id for f in report.findings if f.status is Status.OK}
    assert {
        "python.interpreter", "python.torch_npu", "python.torchvision", "python.import_torch_npu",
        "python.accelerate", "python.decord", "cann.toolkit", "cann.version", "cann.set_env",
        "cann.pairing", "cann.driver", "devices.visible", "devices.health", "devices.processes",
        "project.migrate", "project.entry_setup", "project.cuda_configs", "project.cuda_env",
        "dit4dit.model", "dit4dit.data", "offline.wandb",
    } <= ids  # fmt: skip
    assert finding(report, "cann.version")[1] == (
        f"8.2.RC1 ({TOOLKIT}/aarch64-linux/ascend_toolkit_install.info)"
    )
    assert (
        "driver 25.2.0 (npu-smi info) >= 25.2.0 for CANN 8.2.RC1"
        in finding(report, "cann.driver")[1]
    )
    assert finding(report, "devices.visible")[1].startswith("8 (")
    assert "2 launch setting(s), none above 8" in finding(report, "devices.processes")[1]
    assert "scripts/train.sh:2 WANDB_MODE=offline" in finding(report, "offline.wandb")[1]


def test_version_mismatch_blocks_with_the_pin_to_install(fake: Fake) -> None:
    fake.remove("torch")
    fake.package("torch", "2.7.1")
    fake.package("torch-npu", "2.6.0", init=f"raise ImportError({UNDEFINED!r})\n")
    report = fake.report()
    status, evidence, fix = finding(report, "python.torch_npu")
    assert status is Status.FAIL
    assert "torch 2.7.1 with torch-npu 2.6.0, which needs torch 2.6.0" in evidence
    assert fix == "pip install torch==2.6.0 (torch-npu 2.6.0 is built for torch 2.6.0)"
    status, evidence, fix = finding(report, "python.import_torch_npu")
    assert status is Status.FAIL and "different releases" in evidence
    assert fix is not None and "torch==2.6.0" in fix
    assert report.exit_code == 1


def test_torch_npu_2_7_1_postN_needs_torch_2_7_1(fake: Fake) -> None:
    fake.remove("torch-npu")
    fake.package("torch-npu", "2.7.1.post11")
    status, evidence, _ = finding(fake.report(), "python.torch_npu")
    assert status is Status.FAIL and "needs torch 2.7.1" in evidence


def test_set_env_not_sourced_blocks_and_names_the_script(fake: Fake) -> None:
    del fake.env["ASCEND_TOOLKIT_HOME"]
    fake.env["LD_LIBRARY_PATH"] = "/usr/local/Ascend/driver/lib64"
    fake.package("torch-npu", "2.6.0", init=f"raise ImportError({NO_HCCL!r})\n")
    report = fake.report()
    status, evidence, fix = finding(report, "cann.set_env")
    assert status is Status.FAIL
    assert evidence == f"ASCEND_TOOLKIT_HOME is unset; LD_LIBRARY_PATH lacks {TOOLKIT}/lib64"
    assert fix == (
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh "
        "(in this shell and in the job's start-up)"
    )
    # The toolkit is still found at its default location.
    assert finding(report, "cann.toolkit") == (Status.OK, f"{TOOLKIT} (default location)", None)
    status, evidence, fix = finding(report, "python.import_torch_npu")
    assert status is Status.FAIL and "set_env.sh is not sourced" in evidence
    assert (
        fix
        == "source /usr/local/Ascend/ascend-toolkit/set_env.sh (or add it to the job's start-up)"
    )
    assert report.exit_code == 1


def test_missing_libc10_points_at_the_loader_path(fake: Fake) -> None:
    fake.package("torch-npu", "2.6.0", init=f"raise ImportError({NO_C10!r})\n")
    status, evidence, fix = finding(fake.report(), "python.import_torch_npu")
    assert status is Status.FAIL and "LD_LIBRARY_PATH" in evidence
    assert fix == (
        f"export LD_LIBRARY_PATH={fake.site}/torch/lib:{fake.site}/torch_npu/lib:$LD_LIBRARY_PATH"
    )


def test_old_driver_blocks(fake: Fake) -> None:
    fake.npu_smi(driver="24.1.0")
    report = fake.report()
    status, evidence, fix = finding(report, "cann.driver")
    assert status is Status.FAIL
    assert "driver 24.1.0 (npu-smi info) is older than 25.2.0, which CANN 8.2.RC1 needs" in evidence
    assert fix == "upgrade the NPU driver and firmware to 25.2.0 or newer"
    assert report.exit_code == 1


def test_driver_from_the_version_file_when_npu_smi_is_absent(fake: Fake) -> None:
    (fake.bin / "npu-smi").unlink()
    info = fake.root / "usr/local/Ascend/driver/version.info"
    info.parent.mkdir(parents=True)
    info.write_text("Version=25.3.RC1\n")
    status, evidence, _ = finding(fake.report(), "cann.driver")
    assert status is Status.OK and "25.3.RC1 (/usr/local/Ascend/driver/version.info)" in evidence


def test_a_cann_release_without_a_cited_row_is_unknown(fake: Fake) -> None:
    fake.options = Options(driver_table={})
    status, evidence, _ = finding(fake.report(), "cann.driver")
    assert status is Status.UNKNOWN and "no cited row pairs CANN 8.2.RC1" in evidence


def test_toolkit_of_another_cann_release_warns(fake: Fake) -> None:
    info = fake.root / TOOLKIT.lstrip("/") / "aarch64-linux/ascend_toolkit_install.info"
    info.write_text(INSTALL_INFO.format(version="8.1.RC1"))
    status, evidence, _ = finding(fake.report(), "cann.pairing")
    assert status is Status.WARN
    assert evidence == "torch-npu 2.6.0 is built for CANN 8.2.RC1, the toolkit is 8.1.RC1"


def test_no_toolkit_blocks(fake: Fake) -> None:
    del fake.env["ASCEND_TOOLKIT_HOME"]
    info = fake.root / TOOLKIT.lstrip("/")
    for path in sorted(info.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    info.rmdir()
    status, _, fix = finding(fake.report(), "cann.toolkit")
    assert status is Status.FAIL and fix is not None and "CANN toolkit 8.2.RC1" in fix


def test_too_many_processes_block(fake: Fake) -> None:
    (fake.project / "scripts/train.sh").write_text(TRAIN_SH.format(processes=16))
    report = fake.report()
    status, evidence, fix = finding(report, "devices.processes")
    assert status is Status.FAIL
    assert evidence == (
        "scripts/train.sh:3 asks for 16, but 8 NPU(s) are visible (HCCL: one rank per NPU)"
    )
    assert fix is not None and fix.startswith("use at most 8 processes per node")
    assert report.exit_code == 1


def test_visible_devices_bound_the_processes(fake: Fake) -> None:
    fake.env["ASCEND_RT_VISIBLE_DEVICES"] = "0,1,2,3"
    report = fake.report()
    assert finding(report, "devices.visible")[1].startswith("4 (ASCEND_RT_VISIBLE_DEVICES=0,1,2,3")
    status, evidence, _ = finding(report, "devices.processes")
    assert status is Status.FAIL
    assert "scripts/train.sh:3 asks for 8" in evidence
    assert "configs/accelerate.yaml:3 asks for 8" in evidence


def test_an_accelerate_config_count_alone_warns(fake: Fake) -> None:
    """`accelerate launch --num_processes N` overrides the config's count (train_npu.sh)."""
    (fake.project / "configs/accelerate.yaml").write_text(ACCELERATE_YAML.replace("8", "16"))
    status, evidence, _ = finding(fake.report(), "devices.processes")
    assert status is Status.WARN
    assert evidence.startswith("configs/accelerate.yaml:3 asks for 16, but 8 NPU(s) are visible")
    assert "when launched without --num_processes" in evidence


def test_a_multi_node_launch_counts_per_node(fake: Fake) -> None:
    (fake.project / "scripts/train.sh").write_text(
        "accelerate launch --num_machines 2 \\\n    --num_processes 16 train.py\n"
    )
    assert finding(fake.report(), "devices.processes")[0] is Status.OK
    (fake.project / "scripts/train.sh").write_text(
        "accelerate launch --num_machines $NNODES --machine_rank $RANK --num_processes 64 x.py\n"
    )
    assert "asks for 64" not in finding(fake.report(), "devices.processes")[1]


def test_fewer_device_nodes_than_listed_npus(fake: Fake) -> None:
    for index in range(4, 8):
        (fake.root / "dev" / f"davinci{index}").unlink()
    assert finding(fake.report(), "devices.visible")[1].startswith("4 (npu-smi info -l: 8")


def test_no_npu_visible_blocks(fake: Fake) -> None:
    (fake.bin / "npu-smi").unlink()
    for node in (fake.root / "dev").iterdir():
        node.unlink()
    report = fake.report()
    assert finding(report, "devices.visible")[0] is Status.FAIL
    assert finding(report, "devices.health")[0] is Status.UNKNOWN


def test_unhealthy_npu_blocks(fake: Fake) -> None:
    fake.npu_smi(health="Critical")
    status, evidence, _ = finding(fake.report(), "devices.health")
    assert (status, evidence) == (Status.FAIL, "NPU 0: Critical")


def test_missing_decord_blocks_when_the_project_reads_video_with_it(fake: Fake) -> None:
    fake.remove("decord")
    (fake.site / "decord/__init__.py").unlink()
    (fake.site / "decord").rmdir()
    report = fake.report()
    status, evidence, fix = finding(report, "python.decord")
    assert status is Status.FAIL
    assert "No module named 'decord'" in evidence and "imported by train.py" in evidence
    assert (
        fix == "build decord from source with FFmpeg, or read video with another backend (opencv)"
    )
    assert report.exit_code == 1


def test_decord_without_ffmpeg(fake: Fake) -> None:
    fake.package("decord", "0.6.0", init=f"raise OSError({NO_AVCODEC!r})\n")
    status, evidence, _ = finding(fake.report(), "python.decord")
    assert status is Status.FAIL and "without (or cannot find) FFmpeg" in evidence


def test_wrong_model_layout_blocks(fake: Fake, tmp_path: Path) -> None:
    model = folders(tmp_path / "model", ("transformer/", "model_index.json", "tokenizer/"))
    report = fake.report(model=model)
    status, evidence, fix = finding(report, "dit4dit.model")
    assert status is Status.FAIL
    assert evidence == f"{model} lacks vae/, text_encoder/, scheduler/"
    assert fix is not None and "diffusers revision of Cosmos-Predict2.5-2B" in fix
    assert report.exit_code == 1


def test_wrong_dataset_layout_blocks(fake: Fake, tmp_path: Path) -> None:
    data = folders(tmp_path / "data", ("meta/info.json", "data/"))
    status, evidence, _ = finding(fake.report(data=data), "dit4dit.data")
    assert status is Status.FAIL
    assert evidence.endswith("lacks meta/episodes.jsonl, meta/tasks.jsonl, videos/")


def test_companions_of_another_torch_block(fake: Fake) -> None:
    fake.remove("torchvision")
    fake.package("torchvision", "0.22.0")
    status, _, fix = finding(fake.report(), "python.torchvision")
    assert (
        status is Status.FAIL
        and fix == "pip install 'torchvision==0.21.*' (the release built for torch 2.6.0)"
    )


def test_accelerate_older_than_its_npu_support_blocks(fake: Fake) -> None:
    fake.remove("accelerate")
    fake.package("accelerate", "0.20.3")
    status, evidence, fix = finding(fake.report(), "python.accelerate")
    assert status is Status.FAIL and "from 0.21.0 on" in evidence
    assert fix == "pip install 'accelerate>=0.21.0'"


def test_mx_driving_without_the_patcher_api(fake: Fake) -> None:
    (fake.project / "patched.py").write_text(
        "from mx_driving.patcher import default_patcher_builder\n"
    )
    fake.remove("mx-driving")
    fake.package("mx-driving", "7.0.0", module="mx_driving")
    (fake.site / "mx_driving/patcher.py").write_text("class PatcherBuilder: ...\n")
    status, evidence, _ = finding(fake.report(), "python.mx_driving")
    assert status is Status.FAIL and "no default_patcher_builder" in evidence
    (fake.site / "mx_driving/patcher.py").write_text("default_patcher_builder = object()\n")
    assert finding(fake.report(), "python.mx_driving")[0] is Status.OK


def test_mx_driving_behind_the_migration_guard_is_optional(fake: Fake) -> None:
    fake.remove("mx-driving")
    status, evidence, _ = finding(fake.report(), "python.mx_driving")
    assert status is Status.WARN and "runs without" in evidence


def test_mx_driving_is_not_asked_for_when_unused(fake: Fake) -> None:
    text = (fake.project / "train.py").read_text()
    (fake.project / "train.py").write_text(text.replace("mx_driving", "mx_elsewhere"))
    assert not [f for f in fake.report().findings if f.id == "python.mx_driving"]


def test_unmigrated_project_blocks_and_cuda_left_in_scripts_warns(fake: Fake) -> None:
    (fake.project / "eval.py").write_text("import torch\nx = torch.zeros(2).cuda()\n")
    (fake.project / "scripts/eval.sh").write_text("export CUDA_VISIBLE_DEVICES=0\npython eval.py\n")
    (fake.project / "configs/run.yaml").write_text("device: cuda\n")
    report = fake.report()
    status, evidence, _ = finding(report, "project.migrate")
    assert status is Status.FAIL and "3 file(s) pending" in evidence
    assert finding(report, "project.cuda_env")[1].startswith(
        "1: scripts/eval.sh:1 (CUDA_VISIBLE_DEVICES)"
    )
    assert finding(report, "project.cuda_configs")[1] == "1: configs/run.yaml:1 (cuda)"


def test_entry_script_without_npu_setup_warns(fake: Fake) -> None:
    (fake.project / "serve.py").write_text(
        "import torch  # migrate: ignore-file\n\nif __name__ == '__main__':\n    pass\n"
    )
    status, evidence, _ = finding(fake.report(), "project.entry_setup")
    assert status is Status.WARN and "serve.py" in evidence


def test_offline_advice_when_the_project_uses_wandb_and_the_hub(fake: Fake) -> None:
    (fake.project / "scripts/train.sh").write_text(
        TRAIN_SH.format(processes=8).replace("export WANDB_MODE=offline\n", "")
    )
    (fake.project / "log.py").write_text("import wandb\nfrom transformers import AutoModel\n")
    report = fake.report()
    status, _, fix = finding(report, "offline.wandb")
    assert status is Status.WARN and fix is not None and "WANDB_MODE=offline" in fix
    status, _, fix = finding(report, "offline.hub")
    assert status is Status.WARN and fix is not None and "HF_HUB_OFFLINE=1" in fix
    assert report.exit_code == 0, "offline advice never blocks"
    fake.env["HF_HUB_OFFLINE"] = "1"
    assert finding(fake.report(), "offline.hub")[0] is Status.OK


def test_no_interpreter_to_probe_blocks(fake: Fake) -> None:
    (fake.bin / "python").unlink()
    report = fake.report()
    assert finding(report, "python.interpreter")[0] is Status.FAIL


def test_json_keys_are_stable(fake: Fake) -> None:
    out = fake.report().to_json()
    assert set(out) == {"schema", "exit_code", "counts", "checks"}
    assert out["schema"] == JSON_SCHEMA == 1
    assert set(out["counts"]) == {"ok", "warn", "fail", "unknown", "skip"}
    for check in out["checks"]:
        assert set(check) == {"id", "section", "title", "status", "blocking", "evidence", "fix"}
        assert check["status"] in out["counts"]
        assert check["blocking"] == (check["status"] == "fail")
    json.dumps(out)


def test_text_report_marks_failures_with_their_fix(fake: Fake) -> None:
    fake.npu_smi(driver="24.1.0")
    text = fake.report().text()
    assert "[ FAIL ] NPU driver: driver 24.1.0 (npu-smi info) is older than 25.2.0" in text
    assert "\n           fix: upgrade the NPU driver and firmware to 25.2.0 or newer\n" in text
    assert text.rstrip().endswith("skipped")


def test_ascend_versions_order_release_candidates_first() -> None:
    keys = [
        ascend_key(v) for v in ("23.0.rc3", "24.1.RC2", "24.1.RC3", "24.1.0", "24.1.0.1", "25.2.0")
    ]
    assert keys == sorted(keys)  # type: ignore[type-var]


def test_cli_json_on_this_machine_and_usage_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(main, ["doctor", str(tmp_path), "--json"])
    assert done.exit_code in (0, 1), done.output
    assert set(json.loads(done.output)) == {"schema", "exit_code", "counts", "checks"}
    assert runner.invoke(main, ["doctor", str(tmp_path / "missing")]).exit_code == 2
    bad_python = runner.invoke(main, ["doctor", str(tmp_path), "--python", "/no/such/python"])
    assert bad_python.exit_code == 2
    assert (
        runner.invoke(main, ["doctor", str(tmp_path), "--model", str(tmp_path / "x")]).exit_code
        == 2
    )


def test_the_doctor_never_imports_the_project(fake: Fake) -> None:
    marker = fake.tmp / "imported"
    (fake.project / "torch_npu.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (fake.project / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    cwd = os.getcwd()
    os.chdir(fake.project)
    try:
        fake.report()
    finally:
        os.chdir(cwd)
    assert not marker.exists()


def test_a_per_user_toolkit_is_found_under_home(fake: Fake) -> None:
    user = fake.root / "home/me/Ascend/ascend-toolkit"
    user.parent.mkdir(parents=True)
    (fake.root / TOOLKIT.lstrip("/")).parent.rename(user)
    fake.env.update(HOME="/home/me", LD_LIBRARY_PATH="/home/me/Ascend/ascend-toolkit/latest/lib64")
    del fake.env["ASCEND_TOOLKIT_HOME"]
    report = fake.report()
    assert finding(report, "cann.toolkit")[1] == (
        "/home/me/Ascend/ascend-toolkit/latest (per-user location)"
    )
    assert finding(report, "cann.version")[1].startswith("8.2.RC1 (/home/me/Ascend/")
    assert finding(report, "cann.set_env")[2] == (
        "source /home/me/Ascend/ascend-toolkit/set_env.sh (in this shell and in the job's start-up)"
    )
