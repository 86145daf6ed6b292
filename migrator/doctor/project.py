"""The project: what `migrate --check` would still change, CUDA left in scripts and configs,
and for DiT4DiT the layout of the model and dataset folders.

The migration runs in-process on the project's files (the engine reads text; it imports
nothing of the project) and writes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from migrator.contract.rule import RuleOptions
from migrator.core.model import Status as FileStatus
from migrator.core.target import TARGETS
from migrator.doctor.context import Check, Context
from migrator.doctor.model import CheckResult, Status
from migrator.engine import registry
from migrator.engine.config import ConfigError
from migrator.engine.config import load as load_config
from migrator.engine.selection import SelectionError, renamed, select, split_codes
from migrator.engine.session import SessionError, choose_profile, migrate, plan
from migrator.engine.settings import Settings

SECTION = "Project"
DIT4DIT = "DiT4DiT folders"
# The Cosmos-Predict2.5 pipeline in diffusers format (model_index.json names the parts).
MODEL_LAYOUT = ("transformer/", "vae/", "text_encoder/", "scheduler/", "model_index.json")
# A LeRobot v2.x dataset, as DiT4DiT's loader reads it.
DATA_LAYOUT = ("meta/info.json", "meta/episodes.jsonl", "meta/tasks.jsonl", "data/", "videos/")


@dataclass(frozen=True)
class Pending:
    profile: str
    files: int
    edits: int
    failed: int
    first: tuple[str, ...]


def pending(project: Path) -> Pending:
    """What `migrate --check PROJECT` would report, with `[tool.migrate]` applied.

    The selection mirrors the CLI's (`migrator.cli._resolve`) for a run without flags.

    Raises ValueError with the configuration's own message when it cannot be used.
    """
    root = project.resolve() if project.is_dir() else project.resolve().parent
    try:
        config = load_config(root)
        profile = choose_profile(config.profile or "auto", root)
        loaded = registry.load()
        selected, _ = renamed(split_codes(config.select or ()), loaded.aliases)
        ignored, _ = renamed(split_codes(config.ignore or ()), loaded.aliases)
        codes = select(loaded.for_profile(profile), selected, ignored, loaded.codes)
        step_codes = select(profile.steps, selected, ignored, loaded.codes)
    except (ConfigError, SessionError, SelectionError) as error:
        raise ValueError(str(error)) from None
    entries: list[str] = []
    for entry in config.entry or ():
        full = ((config.folder or root) / entry).resolve()
        if full.is_file() and full.is_relative_to(root):
            entries.append(full.relative_to(root).as_posix())
    options = RuleOptions(tuple(entries), config.transfer_to_npu is not False)
    settings = Settings(
        TARGETS["npu"], tuple(rule.code for rule in codes), options,
        annotate=bool(config.annotate), step_codes=tuple(step.code for step in step_codes),
    )  # fmt: skip
    exclude, base = config.exclude or (), ""
    if exclude and config.folder is not None:
        prefix = root.relative_to(config.folder.resolve()).as_posix()
        base = "" if prefix == "." else prefix + "/"
    the_plan = plan(project, settings, profile, None, exclude, base)
    files = edits = failed = 0
    first: list[str] = []
    for result in migrate(the_plan):
        if result.status in (FileStatus.CHANGED, FileStatus.CREATED):
            files += 1
            edits += max(len(result.changes), 1)
            if len(first) < 3:
                first.append(result.path)
        elif result.status is FileStatus.FAILED:
            failed += 1
    return Pending(profile.name, files, edits, failed, tuple(first))


def migration_check(ctx: Context) -> list[CheckResult]:
    project = ctx.options.project
    if project is None:
        return []
    title = "migrate --check"
    try:
        found = pending(project)
    except ValueError as error:
        return [
            CheckResult(
                "project.migrate",
                SECTION,
                title,
                Status.FAIL,
                str(error),
                "fix the [tool.migrate] table named above",
            )
        ]
    if found.files == 0 and found.failed == 0:
        return [
            CheckResult(
                "project.migrate",
                SECTION,
                title,
                Status.OK,
                f"nothing left to migrate (profile {found.profile})",
            )
        ]
    evidence = f"{found.edits} edit(s) in {found.files} file(s) pending (profile {found.profile})"
    if found.first:
        evidence += (
            ": " + ", ".join(found.first) + (", ..." if found.files > len(found.first) else "")
        )
    if found.failed:
        evidence += f"; {found.failed} file(s) could not be read or parsed"
    return [
        CheckResult(
            "project.migrate", SECTION, title, Status.FAIL, evidence,
            f"migrate {project} (then review the diff); `migrate {project} --dry-run` shows it",
        )
    ]  # fmt: skip


_MAIN = re.compile(r"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", re.MULTILINE)
_TORCH = re.compile(r"^\s*(?:import|from)\s+torch\b", re.MULTILINE)
_SETUP = re.compile(r"^\s*(?:import|from)\s+(?:torch_npu|mx_driving)\b", re.MULTILINE)


def entry_setup(ctx: Context) -> list[CheckResult]:
    if ctx.options.project is None:
        return []
    title = "entry scripts set up the NPU"
    entries = [
        rel
        for rel, text in ctx.texts.items()
        if rel.endswith(".py") and _MAIN.search(text) and _TORCH.search(text)
    ]
    if not entries:
        return [
            CheckResult(
                "project.entry_setup", SECTION, title, Status.SKIP, "no entry script imports torch"
            )
        ]
    bare = [rel for rel in entries if not _SETUP.search(ctx.texts[rel])]
    if not bare:
        return [
            CheckResult(
                "project.entry_setup",
                SECTION,
                title,
                Status.OK,
                f"{len(entries)} entry script(s) import torch_npu",
            )
        ]
    return [
        CheckResult(
            "project.entry_setup", SECTION, title, Status.WARN,
            f"{len(bare)} of {len(entries)} without `import torch_npu`: {', '.join(bare[:3])}",
            "migrate the project (NPU030 adds the set-up), or pass `--entry FILE` for the "
            "scripts it missed",
        )
    ]  # fmt: skip


_CONFIG_CUDA = re.compile(
    r"""(?:[:=]\s*|-\s+|")['"]?(?P<value>cuda(?::\d+)?|nccl)['"]?\s*(?:[,#}\]]|$)""", re.IGNORECASE
)
_SCRIPT_CUDA = re.compile(r"\b(?P<value>CUDA_VISIBLE_DEVICES|NCCL_[A-Z0-9_]+)\b")


def _sites(ctx: Context, suffixes: tuple[str, ...], pattern: re.Pattern[str]) -> list[str]:
    found: list[str] = []
    for rel, text in ctx.texts.items():
        if not rel.endswith(suffixes):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            match = pattern.search(line)
            if match:
                found.append(f"{rel}:{number} ({match.group('value')})")
    return found


def cuda_left(ctx: Context) -> list[CheckResult]:
    if ctx.options.project is None:
        return []
    found: list[CheckResult] = []
    configs = _sites(ctx, (".yaml", ".yml", ".json", ".toml", ".cfg"), _CONFIG_CUDA)
    title = "configs naming CUDA"
    if configs:
        found.append(
            CheckResult(
                "project.cuda_configs", SECTION, title, Status.WARN,
                f"{len(configs)}: {', '.join(configs[:3])}{', ...' if len(configs) > 3 else ''}",
                "use \"npu\" / \"hccl\" there (or let the code choose the device)",
            )
        )  # fmt: skip
    else:
        found.append(
            CheckResult(
                "project.cuda_configs", SECTION, title, Status.OK, "no config names cuda or nccl"
            )
        )
    scripts = _sites(ctx, (".sh", ".bash"), _SCRIPT_CUDA)
    title = "CUDA_VISIBLE_DEVICES / NCCL_* in scripts"
    if scripts:
        found.append(
            CheckResult(
                "project.cuda_env", SECTION, title, Status.WARN,
                f"{len(scripts)}: {', '.join(scripts[:3])}{', ...' if len(scripts) > 3 else ''} "
                "(ignored on the NPU)",
                "ASCEND_RT_VISIBLE_DEVICES and HCCL_* instead (`migrate` renames them: NPU100)",
            )
        )  # fmt: skip
    else:
        found.append(
            CheckResult(
                "project.cuda_env", SECTION, title, Status.OK, "none in the project's shell scripts"
            )
        )
    return found


def _layout(
    check_id: str, title: str, folder: Path | None, layout: tuple[str, ...], fix: str
) -> list[CheckResult]:
    if folder is None:
        return []
    missing = [
        part for part in layout
        if not ((folder / part).is_dir() if part.endswith("/") else (folder / part).is_file())
    ]  # fmt: skip
    if not missing:
        return [CheckResult(check_id, DIT4DIT, title, Status.OK, f"{folder}: {', '.join(layout)}")]
    return [
        CheckResult(
            check_id, DIT4DIT, title, Status.FAIL, f"{folder} lacks {', '.join(missing)}", fix
        )
    ]


def dit4dit_folders(ctx: Context) -> list[CheckResult]:
    return [
        *_layout(
            "dit4dit.model", "--model layout", ctx.options.model, MODEL_LAYOUT,
            "point --model (BASE_MODEL, framework.cosmos25.base_model) at the diffusers "
            "revision of Cosmos-Predict2.5-2B, which holds transformer/, vae/, text_encoder/, "
            "scheduler/ and model_index.json",
        ),
        *_layout(
            "dit4dit.data", "--data layout", ctx.options.data, DATA_LAYOUT,
            "point --data (DATA_ROOT_DIR) at a LeRobot v2.x dataset: meta/info.json, "
            "meta/episodes.jsonl, meta/tasks.jsonl, data/ (parquet) and videos/ (mp4)",
        ),
    ]  # fmt: skip


CHECKS: tuple[Check, ...] = (migration_check, entry_setup, cuda_left, dit4dit_folders)
