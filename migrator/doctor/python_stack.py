"""The Python stack in the chosen interpreter: torch, torch-npu, their companions, imports.

Facts come from subprocesses of the probed interpreter (`INTERPRETER -c ...`): installed
metadata for versions, one `import` per subprocess for what must load.
"""

from __future__ import annotations

import re

from migrator import data
from migrator.doctor.cann import set_env_script
from migrator.doctor.context import Check, Context
from migrator.doctor.model import CheckResult, Status
from migrator.doctor.versions import at_least, base, release

SECTION = "Python stack"

# The first releases whose own code knows the Ascend NPU:
# - accelerate 0.21.0: `is_npu_available` and NPU device selection arrive in
#   huggingface/accelerate#1676 "Add Ascend NPU accelerator support" (c33adecc, 2023-07-12;
#   first tag v0.21.0).
# - DeepSpeed 0.10.1: `accelerator/npu_accelerator.py` came in #3595 (f3c8eaca, in v0.9.3),
#   but DeepSpeed picks it by itself when torch_npu is installed only from #3831 "Make
#   Ascend NPU available" (23a11a39, 2023-07-22; first tag v0.10.1).
NPU_AWARE = {
    "accelerate": ("0.21.0", "accelerate", "huggingface/accelerate#1676"),
    "deepspeed": ("0.10.1", "deepspeed", "deepspeedai/DeepSpeed#3831"),
}


# torchvision / torchaudio releases built for each torch 2.x release: torchvision 0.(minor+15)
# and torchaudio of torch's own number, per the compatibility tables of pytorch/vision's and
# pytorch/audio's READMEs (torch 2.7 -> torchvision 0.22, torchaudio 2.7).
def companion(package: str, torch_version: str) -> str | None:
    """The major.minor of `package` that matches torch `torch_version` (2.x only)."""
    found = re.match(r"2\.(\d+)\.", torch_version + ".")
    if found is None:
        return None
    minor = int(found.group(1))
    return f"0.{minor + 15}" if package == "torchvision" else f"2.{minor}"


def required_torch(torch_npu: str) -> str | None:
    """The torch release a torch-npu release needs, from the data (else its own number)."""
    version = release(torch_npu)
    if version in data.versions("torch_npu"):
        return data.torch_npu_release(version).torch_version
    row = data.cann_table().get(version)
    return row[1] if row is not None else base(version)


def _pin_fix(torch_npu: str | None) -> str:
    if torch_npu is None:
        return "pip install torch==2.7.1 torch-npu==2.7.1.post11 (after CANN is installed)"
    wanted = required_torch(torch_npu)
    return f"pip install torch=={wanted} (torch-npu {torch_npu} is built for torch {wanted})"


def torch_versions(ctx: Context) -> list[CheckResult]:
    if ctx.stack is None:
        python = ctx.host.interpreter() or ctx.host.python or "python"
        return [
            CheckResult(
                "python.interpreter", SECTION, "interpreter", Status.FAIL,
                f"could not run {python}", "pass --python with the interpreter of the "
                "training environment (the one that has torch and torch_npu)",
            )
        ]  # fmt: skip
    torch = ctx.version("torch")
    npu = ctx.version("torch-npu")
    where = f"{ctx.stack['python']} (Python {ctx.stack['version']})"
    found = [CheckResult("python.interpreter", SECTION, "interpreter", Status.OK, where)]
    if torch is None:
        found.append(
            CheckResult(
                "python.torch", SECTION, "torch", Status.FAIL, "not installed", _pin_fix(npu)
            )
        )
    if npu is None:
        found.append(
            CheckResult(
                "python.torch_npu", SECTION, "torch-npu", Status.FAIL, "not installed",
                f"pip install torch-npu=={_npu_for(torch)} (the release built for torch "
                f"{torch or '2.7.1'})",
            )
        )  # fmt: skip
    if torch is None or npu is None:
        return found
    wanted = required_torch(npu)
    if wanted is None or base(torch) == wanted:
        found.append(
            CheckResult(
                "python.torch_npu", SECTION, "torch and torch-npu",
                Status.OK, f"torch {torch}, torch-npu {npu} (needs torch {wanted})",
            )
        )  # fmt: skip
    else:
        found.append(
            CheckResult(
                "python.torch_npu", SECTION, "torch and torch-npu", Status.FAIL,
                f"torch {torch} with torch-npu {npu}, which needs torch {wanted} "
                "(importing torch_npu fails with 'undefined symbol')", _pin_fix(npu),
            )
        )  # fmt: skip
    return found


def _npu_for(torch: str | None) -> str:
    wanted = base(torch) if torch else "2.7.1"
    candidates = [v for v in data.versions("torch_npu") if required_torch(v) == wanted]
    return candidates[-1] if candidates else data.default_torch_npu()


def companions(ctx: Context) -> list[CheckResult]:
    torch = ctx.version("torch")
    found: list[CheckResult] = []
    if torch is None:
        return found
    for package in ("torchvision", "torchaudio"):
        version = ctx.version(package)
        wanted = companion(package, torch)
        if version is None or wanted is None:
            continue
        ok = version == wanted or version.startswith(wanted + ".")
        found.append(
            CheckResult(
                f"python.{package}", SECTION, package, Status.OK if ok else Status.FAIL,
                f"{package} {version} with torch {torch} (matches {wanted}.x)",
                None if ok else f"pip install '{package}=={wanted}.*' (the release built for "
                f"torch {base(torch)})",
            )
        )  # fmt: skip
    return found


# The real failures of `import torch_npu` and what causes each (ascend-facts.md, issue 17).
CAUSES = (
    (
        re.compile(r"libhccl\.so|libascendcl\.so|libge_runner\.so|libopapi\.so"),
        "CANN's libraries are not on the loader path: set_env.sh is not sourced in this shell",
        "source {set_env} (or add it to the job's start-up)",
    ),
    (
        re.compile(r"undefined symbol"),
        "torch and torch-npu are different releases (torch-npu is built against one torch)",
        "{pin}",
    ),
    (
        re.compile(r"lib(c10|torch|torch_cpu|torch_python|torch_npu)\.so"),
        "torch's own libraries are not on the loader path (a conda environment whose "
        "LD_LIBRARY_PATH misses torch/lib and torch_npu/lib)",
        "export LD_LIBRARY_PATH={libs}:$LD_LIBRARY_PATH",
    ),
)


def import_torch_npu(ctx: Context) -> list[CheckResult]:
    if ctx.stack is None or ctx.version("torch-npu") is None or ctx.version("torch") is None:
        return []
    imported = ctx.imports("import torch_npu")
    if imported.ok:
        return [
            CheckResult("python.import_torch_npu", SECTION, "import torch_npu", Status.OK, "works")
        ]
    folders = ctx.stack["folders"]
    libs = ":".join(f"{folders[n]}/lib" for n in ("torch", "torch_npu") if folders.get(n))
    values = {
        "set_env": set_env_script(ctx),
        "pin": _pin_fix(ctx.version("torch-npu")),
        "libs": libs or "<site-packages>/torch/lib:<site-packages>/torch_npu/lib",
    }
    for pattern, cause, fix in CAUSES:
        if pattern.search(imported.error):
            return [
                CheckResult(
                    "python.import_torch_npu", SECTION, "import torch_npu", Status.FAIL,
                    f"{imported.error} -> {cause}", fix.format(**values),
                )
            ]  # fmt: skip
    return [
        CheckResult(
            "python.import_torch_npu", SECTION, "import torch_npu", Status.FAIL, imported.error,
            f"run {ctx.stack['python']} -c 'import torch_npu' and read the whole traceback",
        )
    ]  # fmt: skip


PATCHER_PROBE = "import mx_driving.patcher as p; print('default_patcher_builder' in dir(p))"


# The migration's entry-point set-up (NPU030) imports the patcher inside a guard that warns
# and runs on without it; only an import outside that block makes mx-driving required.
_SETUP_BLOCK = re.compile(
    r"# Added by the migration \(entry-point-setup\).*?# End of the migration's set-up\.",
    re.DOTALL,
)


def _needs(text: str, module: str) -> bool:
    pattern = re.compile(rf"^\s*(?:import|from)\s+{re.escape(module)}\b", re.MULTILINE)
    return bool(pattern.search(_SETUP_BLOCK.sub("", text)))


def mx_driving(ctx: Context) -> list[CheckResult]:
    users = ctx.uses("mx_driving")
    if not users:
        return []
    required = [rel for rel in users if _needs(ctx.texts[rel], "mx_driving")]
    version = ctx.version("mx-driving")
    if version is None and not required:
        return [
            CheckResult(
                "python.mx_driving", SECTION, "mx-driving", Status.WARN,
                f"not installed; {users[0]} applies its patcher if present and runs without",
                "pip install mx-driving for its patches (needed with mmcv/mmdet/mmdet3d)",
            )
        ]  # fmt: skip
    if version is None:
        return [
            CheckResult(
                "python.mx_driving", SECTION, "mx-driving", Status.FAIL,
                f"not installed; imported by {required[0]}",
                "pip install mx-driving (a release whose torch range holds the installed torch)",
            )
        ]  # fmt: skip
    probed = ctx.imports(PATCHER_PROBE)
    if probed.ok and probed.stdout.strip().endswith("True"):
        evidence = f"mx-driving {version}, mx_driving.patcher.default_patcher_builder present"
        return [CheckResult("python.mx_driving", SECTION, "mx-driving", Status.OK, evidence)]
    why = probed.error if not probed.ok else "mx_driving.patcher has no default_patcher_builder"
    return [
        CheckResult(
            "python.mx_driving", SECTION, "mx-driving", Status.FAIL, f"mx-driving {version}: {why}",
            "install an mx-driving release with `from mx_driving.patcher import "
            "default_patcher_builder` (26.x), or change the entry script to that release's API",
        )
    ]  # fmt: skip


def npu_aware(ctx: Context) -> list[CheckResult]:
    found: list[CheckResult] = []
    for distribution, (minimum, module, source) in NPU_AWARE.items():
        version = ctx.version(distribution)
        users = ctx.uses(module)
        if version is None:
            if users:
                found.append(
                    CheckResult(
                        f"python.{distribution}", SECTION, distribution, Status.FAIL,
                        f"not installed; imported by {users[0]}",
                        f"pip install '{distribution}>={minimum}'",
                    )
                )  # fmt: skip
            continue
        ok = at_least(version, minimum)
        status = Status.OK if ok else Status.FAIL if ok is False else Status.UNKNOWN
        found.append(
            CheckResult(
                f"python.{distribution}", SECTION, distribution, status,
                f"{distribution} {version} (the NPU is known from {minimum} on: {source})",
                None if ok else f"pip install '{distribution}>={minimum}'",
            )
        )  # fmt: skip
    return found


def decord(ctx: Context) -> list[CheckResult]:
    users = ctx.uses("decord")
    if not users:
        return []
    imported = ctx.imports("import decord")
    if imported.ok:
        version = ctx.version("decord") or ctx.version("eva-decord") or "?"
        return [
            CheckResult("python.decord", SECTION, "decord", Status.OK, f"decord {version} imports")
        ]
    if "libavcodec" in imported.error or "libavformat" in imported.error:
        cause = "decord was built without (or cannot find) FFmpeg's libraries"
        fix = (
            "install FFmpeg's shared libraries (libavcodec, libavformat) "
            "or rebuild decord with them"
        )
    else:
        cause = "decord is not installed (PyPI has no aarch64 wheel)"
        fix = "build decord from source with FFmpeg, or read video with another backend (opencv)"
    return [
        CheckResult(
            "python.decord", SECTION, "decord", Status.FAIL,
            f"{imported.error} -> {cause}; imported by {users[0]}", fix,
        )
    ]  # fmt: skip


CHECKS: tuple[Check, ...] = (
    torch_versions,
    companions,
    import_torch_npu,
    mx_driving,
    npu_aware,
    decord,
)
