"""The NPUs this job can see, their health, and launch settings that ask for more ranks.

npu-smi output shapes: `npu-smi info` prints a table whose first row per NPU is
`| NPU  Name | Health | Power(W) Temp(C) ...|` with Health one of OK, Warning, Alarm,
Critical or UNKNOWN and the driver version in its header (`Version: 25.2.0`), as in
Ascend's npu-smi reference (https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_007.html);
`npu-smi info -l` prints `Total Count : N` and one `NPU ID : i` block per card with its
`Chip Count`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from migrator.doctor.context import Check, Context
from migrator.doctor.model import CheckResult, Status

SECTION = "Devices"
_HEALTH = re.compile(
    r"^\|\s*(?P<npu>\d+)\s+(?P<name>\S+)\s*\|\s*(?P<health>OK|Warning|Alarm|Critical|UNKNOWN)\s*\|",
    re.MULTILINE,
)
_DAVINCI = re.compile(r"davinci\d+")
_YAML = (".yaml", ".yml")


@dataclass(frozen=True)
class Visible:
    count: int | None
    evidence: str


def visible(ctx: Context) -> Visible:
    """How many NPUs a process started here gets, and how that was seen."""
    listed: int | None = None
    ran = ctx.host.run(["npu-smi", "info", "-l"])
    if ran is not None and ran.returncode == 0:
        cards = len(re.findall(r"NPU ID\s*:", ran.stdout))
        chips = [int(n) for n in re.findall(r"Chip Count\s*:\s*(\d+)", ran.stdout)]
        listed = sum(chips) if chips else cards
    dev = ctx.host.path("/dev")
    nodes = len([p for p in dev.iterdir() if _DAVINCI.fullmatch(p.name)]) if dev.is_dir() else 0
    seen = [
        f"npu-smi info -l: {listed if listed is not None else 'not available'}",
        f"/dev/davinciN: {nodes}",
    ]
    ids = ctx.host.env.get("ASCEND_RT_VISIBLE_DEVICES")
    if ids:
        count = len([i for i in ids.split(",") if i.strip()])
        return Visible(count, f"ASCEND_RT_VISIBLE_DEVICES={ids} ({', '.join(seen)})")
    counts = [n for n in (listed or 0, nodes) if n > 0]
    return Visible(min(counts) if counts else 0, ", ".join(seen))


def visible_check(ctx: Context) -> list[CheckResult]:
    seen = visible(ctx)
    if seen.count:
        return [
            CheckResult(
                "devices.visible",
                SECTION,
                "visible NPUs",
                Status.OK,
                f"{seen.count} ({seen.evidence})",
            )
        ]
    return [
        CheckResult(
            "devices.visible", SECTION, "visible NPUs", Status.FAIL, f"none ({seen.evidence})",
            "install the NPU driver, or in a container map the /dev/davinciN, "
            "/dev/davinci_manager, /dev/devmm_svm and /dev/hisi_hdc devices and npu-smi into it",
        )
    ]  # fmt: skip


def health_check(ctx: Context) -> list[CheckResult]:
    ran = ctx.host.run(["npu-smi", "info"])
    if ran is None or ran.returncode != 0:
        return [
            CheckResult(
                "devices.health",
                SECTION,
                "NPU health",
                Status.UNKNOWN,
                "npu-smi info is not available",
                "run npu-smi info on the host",
            )
        ]
    rows = [(m.group("npu"), m.group("health")) for m in _HEALTH.finditer(ran.stdout)]
    if not rows:
        return [
            CheckResult(
                "devices.health",
                SECTION,
                "NPU health",
                Status.UNKNOWN,
                "npu-smi info lists no NPU rows",
                "run npu-smi info and read it",
            )
        ]
    bad = [f"NPU {npu}: {health}" for npu, health in rows if health != "OK"]
    if not bad:
        return [
            CheckResult(
                "devices.health", SECTION, "NPU health", Status.OK, f"{len(rows)} NPU(s) OK"
            )
        ]
    failed = any(not b.endswith("Warning") for b in bad)
    return [
        CheckResult(
            "devices.health", SECTION, "NPU health", Status.FAIL if failed else Status.WARN,
            ", ".join(bad), "leave those NPUs out with ASCEND_RT_VISIBLE_DEVICES and read "
            "`npu-smi info -t health -i ID` (or ask the host's administrator)",
        )
    ]  # fmt: skip


_SHELL_COUNT = re.compile(
    r"--(?P<flag>num_processes|nproc_per_node|nproc-per-node)(?:=|[ \t]+)(?P<n>\d+)\b"
)
_SHELL_MACHINES = re.compile(r"--num_machines(?:=|[ \t]+)(?P<n>\S+)")
# Where a count spans nodes whose number the script does not spell out, the per-node share
# cannot be read: such launches are not counted (DIT012 leaves them alone for the same reason).
_CLUSTER = re.compile(r"^\s*#SBATCH\b|\bsrun\b|\bmpirun\b|--machine_rank\b", re.MULTILINE)
_YAML_COUNT = re.compile(r"^\s*num_processes:\s*(?P<n>\d+)\s*(?:#.*)?$", re.MULTILINE)
_YAML_MACHINES = re.compile(r"^\s*num_machines:\s*(?P<n>\d+)", re.MULTILINE)


def _commands(text: str) -> list[tuple[int, str]]:
    """(first line number, command joined at backslash continuations), comments left out."""
    found: list[tuple[int, str]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        first, parts = index, []
        while True:
            body = lines[index]
            if body.rstrip().endswith("\\") and index + 1 < len(lines):
                parts.append(body.rstrip()[:-1])
                index += 1
                continue
            parts.append(body)
            break
        command = " ".join(parts)
        if not command.lstrip().startswith("#"):
            found.append((first + 1, command))
        index += 1
    return found


def requested(ctx: Context) -> list[tuple[str, int, int]]:
    """(file:line, processes per node, processes asked for) for every literal count."""
    found: list[tuple[str, int, int]] = []
    for rel, text in ctx.scripts():
        cluster = bool(_CLUSTER.search(text))
        for line, command in _commands(text):
            for match in _SHELL_COUNT.finditer(command):
                asked = int(match.group("n"))
                machines = _SHELL_MACHINES.search(command)
                nodes = machines.group("n").strip("'\"") if machines else "1"
                spans_nodes = match.group("flag") == "num_processes"
                if spans_nodes and (cluster or not nodes.isdigit()):
                    continue
                per_node = -(-asked // int(nodes)) if spans_nodes and int(nodes) > 1 else asked
                found.append((f"{rel}:{line}", per_node, asked))
    for rel, text in ctx.texts.items():
        if not rel.endswith(_YAML):
            continue
        machines_at = _YAML_MACHINES.search(text)
        nodes = int(machines_at.group("n")) if machines_at else 1
        for match in _YAML_COUNT.finditer(text):
            asked = int(match.group("n"))
            line = text.count("\n", 0, match.start("n")) + 1
            found.append((f"{rel}:{line}", -(-asked // max(nodes, 1)), asked))
    return found


def processes_check(ctx: Context) -> list[CheckResult]:
    if ctx.options.project is None:
        return []
    asked = requested(ctx)
    title = "processes per NPU"
    if not asked:
        return [
            CheckResult(
                "devices.processes",
                SECTION,
                title,
                Status.SKIP,
                "no literal --num_processes / num_processes: in the project",
            )
        ]
    seen = visible(ctx)
    if not seen.count:
        return [
            CheckResult(
                "devices.processes",
                SECTION,
                title,
                Status.UNKNOWN,
                f"{len(asked)} launch setting(s); no NPU visible to compare with",
            )
        ]
    over = [
        (where, f"{where} asks for {n}" + (f" ({per} per node)" if per != n else ""))
        for where, per, n in asked
        if per > seen.count
    ]
    if not over:
        evidence = f"{len(asked)} launch setting(s), none above {seen.count} visible NPU(s)"
        return [CheckResult("devices.processes", SECTION, title, Status.OK, evidence)]
    # A script's count is what starts; a config's `num_processes:` is what starts only when
    # the launch does not pass --num_processes (train_npu.sh always does): a warning.
    in_scripts = [text for where, text in over if not where.split(":")[0].endswith(_YAML)]
    status = Status.FAIL if in_scripts else Status.WARN
    note = "" if in_scripts else " when launched without --num_processes"
    return [
        CheckResult(
            "devices.processes", SECTION, title, status,
            f"{'; '.join(text for _, text in over)}, but {seen.count} NPU(s) are visible{note} "
            "(HCCL: one rank per NPU)",
            f"use at most {seen.count} processes per node there (or launch with "
            "scripts/train_npu.sh, which counts the NPUs)",
        )
    ]  # fmt: skip


CHECKS: tuple[Check, ...] = (visible_check, health_check, processes_check)
