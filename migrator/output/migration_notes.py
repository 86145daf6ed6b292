"""`NPU_MIGRATION.md` for a generic run: what needs a person, and how to set up the host.

Rendered from the run's own results and project view, never from guesses: the torch-npu
release the run targeted and why (`migrator.data.release`), the torch it requires and the
CANN toolkit it pairs with (`migrator/data/torch_npu_api.json`), the entry scripts the
project's own launch lines run (the project view) and which of them this run set up, and
each launch line with what changes on an Ascend host. The counts are those of the run
that writes the file, this file included.

The file is the user's once written: `decide` creates it where the path is free and the run
changed something, leaves it alone when it holds the same text or the run found nothing
new, and otherwise keeps it with a warning, as the DiT4DiT profile's report does.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from migrator import __version__, data
from migrator.core.model import FileResult, Finding, SkippedPath, Status
from migrator.core.project import Entry, ProjectView
from migrator.formats.sources import split_lines
from migrator.output.report import action_sections, counted

PATH = "NPU_MIGRATION.md"
SET_ENV = "/usr/local/Ascend/ascend-toolkit/set_env.sh"
USER_SET_ENV = "$HOME/Ascend/ascend-toolkit/set_env.sh"


@dataclass(frozen=True)
class Codes:
    """The codes the notes read results by: the step's own, the entry set-up rule's and the
    dependency rules' (the generic rules package names them; this module knows no rule)."""

    own: str
    entry_setup: str
    dependencies: tuple[str, ...]


def render(
    root: Path,
    results: Sequence[FileResult],
    project: ProjectView,
    codes: Codes,
    skipped: Sequence[SkippedPath] = (),
) -> str:
    own = FileResult(PATH, Status.CREATED)
    summary = counted(results, own, skipped)
    lines = [
        "# NPU migration",
        "",
        f"Written by npu-migrator {__version__} (profile `generic`) when it migrated this "
        "project for Ascend NPUs (torch + torch_npu). It lists what still needs a person, "
        "grouped by what to do, and how to set up and launch the project on an Ascend "
        f"host. Later runs leave it as it is; delete it to get a fresh one.",
        "",
        f"**The run that wrote this file:** {summary.line()} (counting this file, which it "
        "created).",
        "",
        *action_sections(results),
        *_failed(results),
        *setup_section(root, results, project, codes),
    ]
    return "\n".join(lines).rstrip("\n") + "\n"


def _failed(results: Sequence[FileResult]) -> list[str]:
    failed = [r for r in results if r.status is Status.FAILED]
    if not failed:
        return []
    return ["## Files that failed", "", *(f"- `{r.path}`: {r.error}" for r in failed), ""]


def cann_of(version: str) -> tuple[str | None, str]:
    """(the CANN version a torch-npu release pairs with, or None; where that comes from)."""
    release = data.torch_npu_release(version)
    if release.cann is not None:
        return release.cann, f"torch-npu {version}'s wheel ({release.cann_source})"
    row = data.cann_table().get(version)
    if row is not None:
        return row[0], "the torch-npu README's CANN table"
    return None, release.cann_source


def _nearest_cann(version: str, torch: str) -> str:
    """The pairing of the newest other torch-npu release for the same torch, as a hint."""
    table = data.cann_table()
    rows = [r for r, (_, t) in table.items() if t == torch and r != version]
    known = [r for r in rows if r in data.versions()] or rows
    if not known:
        return ""
    try:
        newest = max(known, key=data.version_key)
    except ValueError:
        newest = sorted(known)[-1]
    return f"; torch-npu {newest} (same torch) pairs with CANN {table[newest][0]}"


def setup_section(
    root: Path, results: Sequence[FileResult], project: ProjectView, codes: Codes
) -> list[str]:
    release = project.target_release
    facts = data.torch_npu_release(release.version)
    cann, source = cann_of(release.version)
    cann_cell = (
        f"CANN {cann} ({source})"
        if cann is not None
        else f"not known: {source}{_nearest_cann(release.version, facts.torch_version)}; "
        "check the torch-npu release notes"
    )
    lines = [
        "## Set-up on the Ascend host",
        "",
        "### 1. The software stack",
        "",
        "| piece | version | why |",
        "|---|---|---|",
        f"| torch-npu | {release.version} | {_escape(release.reason)} |",
        f"| torch | {facts.torch_version} | torch-npu {release.version} requires "
        f"`{facts.requires_torch}` |",
        f"| CANN toolkit | {cann or '?'} | {_escape(cann_cell)} |",
        *_patcher_row(results, codes, facts.torch_version),
        "",
        "Install the NPU driver and the CANN toolkit first (with its ops package), then, in "
        "the project's environment:",
        "",
        "```sh",
        f"pip install torch=={facts.torch_version} torch-npu=={release.version}"
        + _patcher_package(results, codes, facts.torch_version),
        *_requirement_lines(results, codes),
        "```",
        "",
        "On x86_64 hosts install torch's CPU build first (`pip install "
        f"torch=={facts.torch_version} --index-url https://download.pytorch.org/whl/cpu`): "
        "the default x86_64 wheel brings CUDA libraries. Never install torch-npu where "
        "there is no CANN: `import torch` then fails.",
        "",
        "### 2. CANN's environment, in every shell that runs the project",
        "",
        "```sh",
        f"source {SET_ENV}    # CANN installed as root",
        f'source "{USER_SET_ENV}"    # installed as a user',
        'python -c "import torch, torch_npu; print(torch.npu.is_available(), '
        'torch.npu.device_count())"',
        "npu-smi info",
        "```",
        "",
        "From CANN 8.5.0 the toolkit installs to `Ascend/cann/` (`/usr/local/Ascend/cann/"
        "set_env.sh`, `$HOME/Ascend/cann/set_env.sh`). `migrate doctor .` checks the host "
        "(driver, CANN, set_env.sh, torch/torch-npu pairing) and only reads.",
        "",
        *_entries(root, results, project, codes),
        *_launch_table(),
    ]
    return lines


def _mx_driving(results: Sequence[FileResult], codes: Codes, torch: str) -> str | None:
    """The newest mx-driving release for this torch, where this run's entry set-up applies
    its patcher (the set-up edit says so); else None."""
    if not any("mx_driving" in f.message for f in _setups(results, codes.entry_setup).values()):
        return None
    # Only where the patcher is set up: its one regex is 2 ms of a small run's start.
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    fitting = []
    for version in data.versions("mx_driving"):
        pin = data.requires_torch("mx_driving", version) or ""
        spec = pin.removeprefix("torch")
        try:
            if SpecifierSet(spec).contains(Version(torch)):
                fitting.append(version)
        except (InvalidSpecifier, InvalidVersion):
            continue
    return fitting[-1] if fitting else None


def _patcher_row(results: Sequence[FileResult], codes: Codes, torch: str) -> list[str]:
    version = _mx_driving(results, codes, torch)
    if version is None:
        return []
    pin = data.requires_torch("mx_driving", version)
    return [
        f"| mx-driving | {version} | the entry scripts apply its patcher; it requires `{pin}` |"
    ]


def _patcher_package(results: Sequence[FileResult], codes: Codes, torch: str) -> str:
    version = _mx_driving(results, codes, torch)
    return f" mx-driving=={version}" if version is not None else ""


def _requirement_lines(results: Sequence[FileResult], codes: Codes) -> list[str]:
    edited = [
        r.path
        for r in results
        if r.path.rsplit("/", 1)[-1].endswith(".txt")
        and any(c.code in codes.dependencies for c in r.changes)
    ]
    return [f"pip install -r {path}    # edited for the NPU by this run" for path in edited]


def _setups(results: Sequence[FileResult], code: str) -> dict[str, Finding]:
    """The first entry set-up edit of each file this run set up."""
    found: dict[str, Finding] = {}
    for result in results:
        for change in result.changes:
            if change.code == code and result.path not in found:
                found[result.path] = change
    return found


def _why(message: str) -> str:
    """The reason in an entry set-up message: "entry script (launched by x.sh:3: python)"."""
    start = message.find("(")
    depth = 0
    for index in range(start, len(message)) if start >= 0 else ():
        depth += {"(": 1, ")": -1}.get(message[index], 0)
        if depth == 0:
            return message[start + 1 : index]
    return "detected"


def _entries(
    root: Path, results: Sequence[FileResult], project: ProjectView, codes: Codes
) -> list[str]:
    setups = _setups(results, codes.entry_setup)
    rows: dict[str, tuple[str, str]] = {}
    for entry in project.entries:
        if entry.path in rows:
            continue
        why = f"launched by `{entry.source}:{entry.line}` (`{entry.how}`)"
        found = setups.get(entry.path)
        done = (
            f"yes ({found.code}, line {found.line})"
            if found is not None
            else "no edit: it already sets up the NPU, or was left out (see the warnings)"
        )
        rows[entry.path] = (why, done)
    for path, found in setups.items():
        if path not in rows:
            rows[path] = (_why(found.message), f"yes ({found.code}, line {found.line})")
    lines = ["### 3. Entry scripts", ""]
    if not rows:
        return [
            *lines,
            "No entry script was found or set up: name the scripts that start training with "
            "`--entry FILE` and run again, so that they import torch_npu first.",
            "",
        ]
    lines += [
        "Set up means: the script imports torch_npu (and `transfer_to_npu`) before anything "
        "builds a device, an accelerator or a process group.",
        "",
        "| script | why it is an entry | set up by this run |",
        "|---|---|---|",
    ]
    lines += [f"| `{path}` | {_escape(why)} | {done} |" for path, (why, done) in rows.items()]
    lines.append("")
    unlaunched = [path for path in setups if project.entry(path) is None]
    return [*lines, *_launches(root, project.entries, unlaunched)]


_LAUNCHERS = (
    ("torchrun", "torchrun works as it is: one process per NPU (`--nproc_per_node` at most "
     "the NPUs `npu-smi info` lists); the process group uses hccl (`\"nccl\"` rewritten by "
     "this run, or by transfer_to_npu at run time)"),
    ("torch.distributed", "the torch.distributed launcher works as it is: one process per "
     "NPU; the process group uses hccl"),
    ("accelerate", "accelerate launch works as it is: accelerate 1.x finds the NPU itself "
     "and uses hccl; `--num_processes` at most the visible NPUs"),
    ("deepspeed", "the deepspeed launcher works as it is: DeepSpeed picks its NPU "
     "accelerator and the hccl backend itself"),
    ("python", "one process: it sees the NPUs `ASCEND_RT_VISIBLE_DEVICES` lists and runs "
     "on NPU 0 unless the script picks another"),
)  # fmt: skip
_INSTALLED = "run the installed command as before, in a shell where set_env.sh was sourced"


def _how_to_launch(how: str) -> str:
    for word, text in _LAUNCHERS:
        if word in how:
            return text
    return _INSTALLED


def _launches(root: Path, entries: Sequence[Entry], unlaunched: Sequence[str]) -> list[str]:
    seen: dict[tuple[str, int], Entry] = {}
    for entry in entries:
        seen.setdefault((entry.source, entry.line), entry)
    if not seen and not unlaunched:
        return []
    lines = [
        "### 4. Launching on NPUs",
        "",
        "The project's own launch lines, as written (this run may have renamed their "
        "CUDA variables), and what changes on an Ascend host:",
        "",
        "| launch line | runs | command | on the NPU |",
        "|---|---|---|---|",
    ]
    # Each source's lines are read once: a README or script with thousands of launch lines
    # was read and split again for each of them.
    sources: dict[str, list[str]] = {}
    for (source, line), entry in seen.items():
        if source not in sources:
            sources[source] = _source_lines(root, source)
        command = _line_text(sources[source], line)
        shown = f"`{_escape(command)}`" if command else f"`{entry.how}` {entry.path}"
        how = _how_to_launch(entry.how)
        lines.append(f"| `{source}:{line}` | `{entry.path}` | {shown} | {how} |")
    for path in unlaunched:
        several = f"`torchrun --nproc_per_node N {path}` if it sets up a process group"
        lines.append(
            f"| (none in the project) | `{path}` | `python {path}` | "
            f"{_how_to_launch('python')}; for several NPUs, {several} |"
        )
    return [*lines, ""]


def _source_lines(root: Path, rel: str) -> list[str]:
    """The lines of a file that holds launch lines (none where it cannot be read)."""
    try:
        return split_lines((root / rel).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []


def _line_text(found: Sequence[str], line: int, limit: int = 100) -> str:
    """The launch command at `line` of `found` (a file's lines), its backslash-continued
    lines joined, shortened."""
    parts: list[str] = []
    index = line - 1
    while 0 <= index < len(found):
        part = found[index].rstrip("\r\n").strip()
        parts.append(part.rstrip("\\").strip())
        if not part.endswith("\\") or len(" ".join(parts)) > limit:
            break
        index += 1
    shown = " ".join(part for part in parts if part).replace("`", "'")
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _launch_table() -> list[str]:
    return [
        "### What changes from CUDA",
        "",
        "| on CUDA | on the NPU |",
        "|---|---|",
        "| `CUDA_VISIBLE_DEVICES` | `ASCEND_RT_VISIBLE_DEVICES` |",
        '| NCCL: backend `"nccl"`, `NCCL_*` variables | HCCL: backend `"hccl"`, `HCCL_*` '
        "variables (not every key has a counterpart) |",
        "| `CUDA_LAUNCH_BLOCKING=1` | `ASCEND_LAUNCH_BLOCKING=1` |",
        "| `PYTORCH_CUDA_ALLOC_CONF` | `PYTORCH_NPU_ALLOC_CONF` |",
        "| `nvidia-smi` | `npu-smi info` |",
        "| NCCL logs (`NCCL_DEBUG`) | CANN logs in `~/ascend/log` (`ASCEND_GLOBAL_LOG_LEVEL`, "
        "`ASCEND_SLOG_PRINT_TO_STDOUT=1`) |",
        "",
    ]


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _holds(path: Path, text: bytes) -> bool:
    try:
        return path.is_file() and not path.is_symlink() and path.read_bytes() == text
    except OSError:
        return False


def _news(results: Sequence[FileResult]) -> bool:
    return any(result.changes or result.status is not Status.UNCHANGED for result in results)


def decide(root: Path, text: str, results: Sequence[FileResult], code: str) -> list[FileResult]:
    """The notes' result: created where the path is free and the run changed something;
    unchanged where the file holds this text or the run found nothing new; else kept, with
    a warning (the file is the user's, or an earlier run's)."""
    encoded = text.encode("utf-8")
    full = root / PATH
    if not os.path.lexists(full):
        return [FileResult(PATH, Status.CREATED, new_data=encoded)] if _news(results) else []
    if _holds(full, encoded) or not _news(results):
        return [FileResult(PATH, Status.UNCHANGED)]
    warning = Finding.warning(
        PATH, 1, 1, code, "exists (written by an earlier run, or yours); kept as it is",
        "delete or rename it and run again to get the notes of this run",
    )  # fmt: skip
    return [FileResult(PATH, Status.UNCHANGED, findings=(warning,))]
