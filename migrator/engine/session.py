"""One migration run, start to end, without printing: the CLI drives it and reports."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from migrator.contract.profile import GENERIC, Profile, Step, StepInput
from migrator.contract.rule import RuleOptions
from migrator.core.model import FileResult, RunSummary, Status
from migrator.engine import registry
from migrator.engine.cache import CacheRef, store
from migrator.engine.files import candidates, migrate_files
from migrator.engine.project import build as build_project
from migrator.engine.settings import Settings
from migrator.engine.walk import Tree, git_toplevel, walk
from migrator.formats.sources import write_atomic


class SessionError(Exception):
    """A problem with the run as a whole (not one file); the message is the whole story."""


def choose_profile(name: str, root: Path) -> Profile:
    loaded = registry.load()
    if name != "auto":
        profile = loaded.profile(name)
        if profile is None:
            names = ", ".join(p.name for p in loaded.profiles)
            raise SessionError(f"unknown profile {name!r} (known: auto, {names})")
        return profile
    for profile in loaded.profiles:
        if profile.detect is not None and root.is_dir() and profile.detect(root):
            return profile
    return GENERIC


@dataclass(frozen=True)
class Plan:
    root: Path
    tree: Tree
    settings: Settings
    profile: Profile
    jobs: int
    cache: CacheRef | None = None

    @property
    def options(self) -> RuleOptions:
        return self.settings.options


# The rule that migrates the project view's device settings (config-device-value).
CONFIG_DEVICE_RULE = "NPU120"


def plan(
    path: Path,
    settings: Settings,
    profile: Profile,
    jobs: int,
    exclude: Sequence[str] = (),
    exclude_base: str = "",
    cache: CacheRef | None = None,
) -> Plan:
    tree = walk(path, exclude, exclude_base)
    # Facts about the whole project, once, before the per-file passes: they travel to the
    # workers (and into the cache's run key) inside the settings.
    view = build_project(tree.root, tree.files)
    view = replace(view, migrates_device_settings=CONFIG_DEVICE_RULE in settings.rule_codes)
    settings = replace(settings, project=view)
    return Plan(tree.root, tree, settings, profile, jobs, cache)


def migrate(plan: Plan) -> Iterator[FileResult]:
    """Results of the rules, then of the profile's steps, in a stable order.

    Each step sees the results of the rules and of the steps before it (a last step can
    report on the whole run).
    """
    files = candidates(plan.settings, plan.tree.files)
    results: list[FileResult] = []
    for result in migrate_files(plan.root, files, plan.settings, plan.jobs, plan.cache):
        results.append(replace(result, old_data=None, new_data=None))
        yield result
    if plan.cache is not None:
        store(plan.cache, results)
    for step in steps(plan):
        so_far = tuple(results)
        given = StepInput(plan.root, plan.tree.files, so_far, plan.settings.target, plan.options)
        for result in step(given):
            results.append(replace(result, old_data=None, new_data=None))
            yield result


def steps(plan: Plan) -> list[Step]:
    """The profile's steps that the selection keeps, in the profile's order."""
    chosen = plan.settings.step_codes
    return [step for step in plan.profile.steps if chosen is None or step.code in chosen]


def count(plan: Plan) -> int:
    return len(candidates(plan.settings, plan.tree.files))


def uncommitted(root: Path, rels: Sequence[str]) -> list[str]:
    """Which of these files have uncommitted changes (or are untracked) in their git tree."""
    if not rels or git_toplevel(root) is None:
        return []
    dirty: list[str] = []
    step = 500
    for start in range(0, len(rels), step):
        chunk = list(rels[start : start + step])
        done = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "-z", "--untracked-files=all",
             "--", *chunk],
            capture_output=True, check=False, timeout=300,
        )  # fmt: skip
        if done.returncode != 0:
            raise SessionError(f"{root}: git status failed: {done.stderr.decode().strip()}")
        wanted = set(chunk)
        entries = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        prefix = _prefix_in_repo(root)
        for entry in entries:
            if len(entry) > 3:
                name = entry[3:]
                rel = name[len(prefix) :] if prefix and name.startswith(prefix) else name
                if rel in wanted:
                    dirty.append(rel)
    return sorted(set(dirty))


def _prefix_in_repo(root: Path) -> str:
    top = git_toplevel(root)
    if top is None:
        return ""
    rel = root.resolve().relative_to(top.resolve()).as_posix()
    return "" if rel == "." else rel + "/"


def write_in_place(root: Path, results: Sequence[FileResult]) -> None:
    for result in results:
        if result.new_data is not None and result.status in (Status.CHANGED, Status.CREATED):
            write_atomic(root / result.path, result.new_data)


def check_out_dir(root: Path, out: Path) -> None:
    source = root.resolve()
    target = out.resolve()
    if target == source or source in target.parents:
        raise SessionError(f"{out}: --out must not be inside the migrated folder {root}")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise SessionError(f"{out}: --out exists and is not empty; remove it or choose another")


def write_copy(
    plan: Plan, out: Path, results: Sequence[FileResult], progress: Callable[[], None] | None = None
) -> None:
    """Copy every project file into `out`, then the migrated and created files over them."""
    out.mkdir(parents=True, exist_ok=True)
    for rel in plan.tree.files:
        destination = out / rel
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(plan.root / rel, destination)
        if progress is not None:
            progress()
    write_in_place(out, results)


def finish(summary: RunSummary, result: FileResult) -> None:
    summary.add(result)
    summary.results.append(replace(result, old_data=None, new_data=None))
