"""One migration run, start to end, without printing: the CLI drives it and reports."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from migrator.contract.profile import GENERIC, Profile, Step, StepInput
from migrator.core.model import FileResult, RunSummary, Status
from migrator.core.options import RuleOptions
from migrator.engine import registry
from migrator.engine.cache import CacheRef, store
from migrator.engine.files import CoreWatch, candidates, migrate_files
from migrator.engine.project import build as build_project
from migrator.engine.project import choose_release
from migrator.engine.settings import Settings
from migrator.engine.walk import Tree, git_toplevel, walk

if TYPE_CHECKING:
    # Imported where a run writes: a dry run never needs the writing machinery.
    from migrator.engine.writes import Outcome, Write


class SessionError(Exception):
    """A problem with the run as a whole (not one file); the message is the whole story."""


def choose_profile(name: str, root: Path) -> Profile:
    loaded = registry.catalog()
    if name != "auto":
        profile = loaded.profile(name)
        if profile is None:
            names = ", ".join(p.name for p in loaded.profiles)
            raise SessionError(f"unknown profile {name!r} (known: auto, {names})")
        return profile
    for profile in loaded.profiles:
        if profile.detect is not None and root.is_dir() and profile.detect(root):
            return profile
    return loaded.profile(GENERIC.name) or GENERIC


@dataclass(frozen=True)
class Plan:
    root: Path
    tree: Tree
    settings: Settings
    profile: Profile
    jobs: int | None
    cache: CacheRef | None = None
    # The cores as the planning found them (`jobs` None): how busy they are is then read
    # over the planning, with no wait of its own.
    watch: CoreWatch | None = None

    @property
    def options(self) -> RuleOptions:
        return self.settings.options


# The rule that migrates the project view's device settings (config-device-value).
CONFIG_DEVICE_RULE = "NPU120"


def plan(
    path: Path,
    settings: Settings,
    profile: Profile,
    jobs: int | None,
    exclude: Sequence[str] = (),
    exclude_base: str = "",
    cache: CacheRef | None = None,
) -> Plan:
    watch = CoreWatch.start() if jobs is None else None
    tree = walk(path, exclude, exclude_base)
    # Facts about the whole project, once, before the per-file passes: they travel to the
    # workers (and into the cache's run key) inside the settings.
    view = build_project(tree.root, tree.files)
    release = choose_release(view, settings.torch_npu, settings.torch_npu_origin)
    view = replace(
        view,
        release=release,
        migrates_device_settings=CONFIG_DEVICE_RULE in settings.rule_codes,
    )
    settings = replace(settings, project=view)
    return Plan(tree.root, tree, settings, profile, jobs, cache, watch)


class StepCrash(Exception):
    """A profile step raised: a bug in the tool; the message names the step, the cause is
    the exception."""


def migrate(plan: Plan) -> Iterator[FileResult]:
    """Results of the rules, then of the profile's steps, in a stable order.

    Each step sees the results of the rules and of the steps before it (a last step can
    report on the whole run).
    """
    files = candidates(plan.settings, plan.tree.files)
    results: list[FileResult] = []
    for result in migrate_files(plan.root, files, plan.settings, plan.jobs, plan.cache, plan.watch):
        results.append(replace(result, old_data=None, new_data=None))
        yield result
    if plan.cache is not None:
        store(plan.cache, results)
    for step in steps(plan):
        so_far = tuple(results)
        given = StepInput(
            plan.root, plan.tree.files, so_far, plan.settings.target, plan.options,
            plan.settings.project, tuple(plan.tree.skipped),
        )  # fmt: skip
        try:
            produced = list(step(given))
        except Exception as error:
            raise StepCrash(f"profile step {step.code} ({step.name})") from error
        for result in produced:
            results.append(replace(result, old_data=None, new_data=None))
            yield result


def steps(plan: Plan) -> list[Step]:
    """The profile's steps that the selection keeps, in the profile's order."""
    chosen = plan.settings.step_codes
    return [step for step in plan.profile.steps if chosen is None or step.code in chosen]


def count(plan: Plan) -> int:
    return len(candidates(plan.settings, plan.tree.files))


def uncommitted(root: Path, rels: Sequence[str]) -> dict[str, str]:
    """Which of these files git holds no clean copy of, by git's status code.

    `" M"`-like codes: uncommitted changes; `"??"`: untracked; `"!!"`: ignored (a PATH that
    .gitignore covers: git holds no copy, the run treats it as outside version control).
    """
    if not rels or git_toplevel(root) is None:
        return {}
    dirty: dict[str, str] = {}
    step = 500
    prefix = _prefix_in_repo(root)
    for start in range(0, len(rels), step):
        chunk = list(rels[start : start + step])
        done = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "-z", "--untracked-files=all",
             "--ignored=traditional", "--", *chunk],
            capture_output=True, check=False, timeout=300,
        )  # fmt: skip
        if done.returncode != 0:
            raise SessionError(f"{root}: git status failed: {done.stderr.decode().strip()}")
        wanted = set(chunk)
        entries = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        for entry in entries:
            if len(entry) > 3:
                name = entry[3:]
                rel = name[len(prefix) :] if prefix and name.startswith(prefix) else name
                if rel in wanted:
                    dirty[rel] = entry[:2]
    return dict(sorted(dirty.items()))


def _prefix_in_repo(root: Path) -> str:
    top = git_toplevel(root)
    if top is None:
        return ""
    rel = root.resolve().relative_to(top.resolve()).as_posix()
    return "" if rel == "." else rel + "/"


def _writes(results: Sequence[FileResult]) -> list[Write]:
    from migrator.engine.writes import Write

    return [
        Write(result.path, result.new_data, result.old_data, result.stamp)
        for result in results
        if result.new_data is not None and result.status in (Status.CHANGED, Status.CREATED)
    ]


def write_in_place(root: Path, results: Sequence[FileResult]) -> Outcome:
    """Write the changed and created files, all or none (see migrator.engine.writes).

    Raises WriteError when nothing could be written.
    """
    from migrator.engine.writes import commit

    return commit(root, _writes(results))


def check_out_dir(root: Path, out: Path) -> None:
    source = root.resolve()
    target = out.resolve()
    if target == source or source in target.parents:
        raise SessionError(f"{out}: --out must not be inside the migrated folder {root}")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise SessionError(f"{out}: --out exists and is not empty; remove it or choose another")


def write_copy(plan: Plan, out: Path, results: Sequence[FileResult]) -> None:
    """OUT as the tree with migrated and created files; on failure OUT as it was."""
    from migrator.engine.writes import copy_tree

    migrated = {write.rel: write.data for write in _writes(results)}
    copy_tree(plan.root, out, plan.tree.files, plan.tree.links, migrated)


def settle(summary: RunSummary, outcome: Outcome) -> RunSummary:
    """The summary once written: files left alone by the write failed, notes added."""
    settled = RunSummary()
    for result in summary.results:
        why = outcome.left.get(result.path)
        if why is not None:
            result = replace(result, status=Status.FAILED, error=why)
        notes = outcome.notes.get(result.path)
        if notes:
            result = replace(result, notes=(*result.notes, *notes))
        finish(settled, result)
    return settled


def finish(summary: RunSummary, result: FileResult) -> None:
    summary.add(result)
    summary.results.append(replace(result, old_data=None, new_data=None))
