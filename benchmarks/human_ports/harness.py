"""Measure the tool against Huawei's published hand ports (Ascend/DrivingSDK model_examples).

For each project: export the upstream tree at the pinned commit, apply the hand patch to a
second copy, run `migrate --out` (default profile) on the pristine copy and `migrate --check`
on the output, then score the hand-listed sites of `sites/NAME.toml` (the format is in
HARNESS-FORMAT.md, summarised in this package's README section of the top-level README).

Layers: loading data (`load_*`), preparing trees (`export_tree`, `apply_patches`), running
the tool (`run_tool`), scoring (`score`, pure: a report, two trees and a site file in, a
`ProjectScore` out) and printing (`table`). Only `main` in `__main__` reads flags.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
CHECKS = ("contains", "not_contains", "warning")
CLASSES = ("M", "W")
VERDICTS = ("useful", "noise", "wrong")


class DataError(Exception):
    """A projects/sites file that does not follow the format."""


@dataclass(frozen=True)
class Project:
    name: str
    upstream: str
    commit: str
    patches: tuple[str, ...]
    driving_sdk_commit: str
    kind: str
    domain: str
    subdir: str = ""
    notes: str = ""


@dataclass(frozen=True)
class Site:
    id: str
    file: str
    cls: str
    what: str
    check: str
    text: str = ""
    lines: tuple[int, int] | None = None
    codes: tuple[str, ...] = ()
    hand_port_wrong: str = ""


@dataclass(frozen=True)
class Verdict:
    file: str
    line: int
    code: str
    verdict: str
    why: str


@dataclass(frozen=True)
class Item:
    """One edit or warning of ours, as the JSON report gives it (line in the original file)."""

    kind: str  # "edit" or "warning"
    file: str
    line: int
    code: str
    message: str


@dataclass
class SiteResult:
    site: Site
    satisfied: bool
    hand_port_satisfies: bool | None  # None: not checkable on the patched copy (warnings)


@dataclass
class JudgedItem:
    item: Item
    category: str  # "site:<id>", "useful", "noise", "wrong" or "unjudged"
    why: str = ""


@dataclass
class ProjectScore:
    name: str
    sites: list[SiteResult]
    items: list[JudgedItem]
    broken: list[str]
    second_run_changes: int
    seconds: float
    tool_exit: int
    check_exit: int
    patch_notes: str = ""
    missing_files: list[str] = field(default_factory=list)

    def count(self, category: str) -> int:
        return sum(1 for judged in self.items if judged.category == category)

    def satisfied(self, cls: str) -> tuple[int, int]:
        picked = [result for result in self.sites if result.site.cls == cls]
        return sum(1 for result in picked if result.satisfied), len(picked)


# ----------------------------------------------------------------------------- loading


def _str(table: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str):
        raise DataError(f"{where}: '{key}' must be a string")
    return value


def _project(table: dict[str, Any], where: str) -> Project:
    patches = table.get("patches", [])
    if not isinstance(patches, list) or not all(isinstance(p, str) for p in patches):
        raise DataError(f"{where}: 'patches' must be a list of strings")
    return Project(
        name=_str(table, "name", where),
        upstream=_str(table, "upstream", where),
        commit=_str(table, "commit", where),
        patches=tuple(patches),
        driving_sdk_commit=_str(table, "driving_sdk_commit", where, ""),
        kind=_str(table, "kind", where, ""),
        domain=_str(table, "domain", where, ""),
        subdir=_str(table, "subdir", where, ""),
        notes=_str(table, "notes", where, ""),
    )


def load_projects(root: Path = HERE) -> list[Project]:
    """projects.toml's [[project]] rows, then one [project] per projects.d/*.toml."""
    projects: list[Project] = []
    main = root / "projects.toml"
    if main.is_file():
        data = tomllib.loads(main.read_text(encoding="utf-8"))
        for index, row in enumerate(data.get("project", [])):
            projects.append(_project(row, f"{main}: project {index + 1}"))
    for path in sorted((root / "projects.d").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        row = data.get("project")
        if not isinstance(row, dict):
            raise DataError(f"{path}: needs one [project] table")
        projects.append(_project(row, str(path)))
    names = [project.name for project in projects]
    for name in names:
        if names.count(name) > 1:
            raise DataError(f"project {name} is listed twice")
    return projects


def _site(table: dict[str, Any], where: str) -> Site:
    check = _str(table, "check", where)
    cls = _str(table, "class", where)
    if check not in CHECKS:
        raise DataError(f"{where}: check must be one of {', '.join(CHECKS)}")
    if cls not in CLASSES:
        raise DataError(f"{where}: class must be M or W")
    raw_lines = table.get("lines")
    lines: tuple[int, int] | None = None
    if raw_lines is not None:
        if (
            not isinstance(raw_lines, list)
            or len(raw_lines) != 2
            or not all(isinstance(n, int) for n in raw_lines)
            or raw_lines[0] > raw_lines[1]
        ):
            raise DataError(f"{where}: lines must be [first, last]")
        lines = (raw_lines[0], raw_lines[1])
    text = _str(table, "text", where, "")
    if check == "warning" and lines is None:
        raise DataError(f"{where}: a warning check needs lines")
    if check != "warning" and not text:
        raise DataError(f"{where}: a {check} check needs text")
    codes = table.get("codes", [])
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise DataError(f"{where}: codes must be a list of strings")
    return Site(
        id=_str(table, "id", where),
        file=_str(table, "file", where),
        cls=cls,
        what=_str(table, "what", where, ""),
        check=check,
        text=text,
        lines=lines,
        codes=tuple(codes),
        hand_port_wrong=_str(table, "hand_port_wrong", where, ""),
    )


def load_sites(path: Path) -> tuple[list[Site], list[Verdict]]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    sites = [_site(row, f"{path}: site {i + 1}") for i, row in enumerate(data.get("site", []))]
    ids = [site.id for site in sites]
    for site_id in ids:
        if ids.count(site_id) > 1:
            raise DataError(f"{path}: site id {site_id} is used twice")
    verdicts: list[Verdict] = []
    for index, row in enumerate(data.get("verdict", [])):
        where = f"{path}: verdict {index + 1}"
        line = row.get("line")
        if not isinstance(line, int):
            raise DataError(f"{where}: line must be an integer")
        verdict = _str(row, "verdict", where)
        if verdict not in VERDICTS:
            raise DataError(f"{where}: verdict must be one of {', '.join(VERDICTS)}")
        verdicts.append(
            Verdict(
                file=_str(row, "file", where),
                line=line,
                code=_str(row, "code", where),
                verdict=verdict,
                why=_str(row, "why", where, ""),
            )
        )
    return sites, verdicts


def report_items(report: dict[str, Any], prefix: str = "") -> list[Item]:
    """Every edit and warning of a `migrate --report X.json` document; paths get `prefix`."""
    items: list[Item] = []
    for entry in report.get("files", []):
        for kind, key in (("edit", "changes"), ("warning", "warnings")):
            for found in entry.get(key, []):
                items.append(
                    Item(
                        kind, prefix + found["path"], found["line"], found["code"], found["message"]
                    )
                )
    return items


# ----------------------------------------------------------------------------- scoring


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _code_matches(code: str, wanted: Sequence[str]) -> bool:
    return not wanted or any(code.upper().startswith(prefix.upper()) for prefix in wanted)


def _on_lines(item: Item, site: Site) -> bool:
    return (
        site.lines is not None
        and item.file == site.file
        and site.lines[0] <= item.line <= site.lines[1]
    )


def site_satisfied(site: Site, tree: Path, items: Sequence[Item]) -> bool:
    if site.check == "warning":
        return any(
            item.kind == "warning"
            and _on_lines(item, site)
            and _code_matches(item.code, site.codes)
            for item in items
        )
    text = _read(tree / site.file)
    if text is None:
        return site.check == "not_contains"
    return (site.text in text) == (site.check == "contains")


def judge(
    items: Sequence[Item], sites: Sequence[Site], verdicts: Sequence[Verdict]
) -> list[JudgedItem]:
    """Sort each item to the site whose lines hold it, else to its verdict, else unjudged."""
    by_key = {(v.file, v.line, v.code): v for v in verdicts}
    judged: list[JudgedItem] = []
    for item in items:
        site = next((s for s in sites if _on_lines(item, s)), None)
        if site is not None:
            judged.append(JudgedItem(item, f"site:{site.id}"))
            continue
        verdict = by_key.get((item.file, item.line, item.code))
        if verdict is None:
            judged.append(JudgedItem(item, "unjudged"))
        else:
            judged.append(JudgedItem(item, verdict.verdict, verdict.why))
    return judged


def _parses(path: Path) -> bool:
    try:
        ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, OSError):
        return False
    return True


def _bash_ok(path: Path) -> bool:
    done = subprocess.run(["bash", "-n", str(path)], capture_output=True, check=False)
    return done.returncode == 0


def broken_outputs(before: Path, after: Path) -> list[str]:
    """Changed .py files that parsed and no longer do; .sh files that passed `bash -n`."""
    broken: list[str] = []
    for old in sorted(before.rglob("*")):
        if old.is_symlink() or not old.is_file() or old.suffix not in (".py", ".sh"):
            continue
        relative = old.relative_to(before)
        new = after / relative
        if not new.is_file() or new.read_bytes() == old.read_bytes():
            continue
        good = _parses if old.suffix == ".py" else _bash_ok
        if good(old) and not good(new):
            broken.append(relative.as_posix())
    return broken


def score(
    name: str,
    sites: Sequence[Site],
    verdicts: Sequence[Verdict],
    report: dict[str, Any],
    pristine: Path,
    out: Path,
    patched: Path | None = None,
    prefix: str = "",
) -> ProjectScore:
    """Score one run; pure apart from reading the trees (`prefix`: the project's subdir/)."""
    items = report_items(report, prefix)
    results = [
        SiteResult(
            site,
            site_satisfied(site, out, items),
            None
            if patched is None or site.check == "warning"
            else site_satisfied(site, patched, ()),
        )
        for site in sites
    ]
    return ProjectScore(
        name=name,
        sites=results,
        items=judge(items, sites, verdicts),
        broken=[prefix + p for p in broken_outputs(pristine / prefix, out / prefix)],
        second_run_changes=0,
        seconds=0.0,
        tool_exit=0,
        check_exit=0,
    )


# ----------------------------------------------------------------------------- preparing


def find_clone(clones: Path, upstream: str) -> Path:
    """A local clone: the fetch tool's OWNER+NAME/repo, a bare OWNER+NAME, or a `git clone` NAME."""
    owner, _, name = upstream.partition("/")
    for candidate in (
        clones / f"{owner}+{name}" / "repo",
        clones / f"{owner}+{name}",
        clones / name,
    ):
        if candidate.is_dir():
            return candidate
    raise DataError(f"no clone of {upstream} under {clones} (see the README: human ports)")


def _git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], input=data, capture_output=True, check=False
    )
    if done.returncode != 0:
        raise DataError(f"git {' '.join(args)} in {repo}: {done.stderr.decode(errors='replace')}")
    return done.stdout


def export_tree(repo: Path, commit: str, dest: Path) -> list[str]:
    """Write the tree of `commit` to dest; returns the paths whose blobs the clone lacks.

    Not `git archive`: snapshots leave their largest blobs (checkpoints) out, and archive
    stops at the first missing one.
    """
    _git(repo, "cat-file", "-e", f"{commit}^{{commit}}")
    listing = _git(repo, "ls-tree", "-r", "-z", "--full-tree", commit).split(b"\0")
    entries: list[tuple[str, str, str]] = []
    for row in listing:
        if not row:
            continue
        meta, _, raw_path = row.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        if kind == "blob":
            entries.append((mode, sha, raw_path.decode("utf-8", errors="surrogateescape")))
    checked = _git(
        repo, "cat-file", "--batch-check", data="".join(f"{s}\n" for _, s, _ in entries).encode()
    )
    present = {
        line.split()[0] for line in checked.decode().splitlines() if not line.endswith("missing")
    }
    missing = [path for _, sha, path in entries if sha not in present]
    wanted = [(mode, sha, path) for mode, sha, path in entries if sha in present]
    blobs = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        input="".join(f"{sha}\n" for _, sha, _ in wanted).encode(),
        capture_output=True,
        check=True,
    ).stdout
    position = 0
    for mode, _, path in wanted:
        header_end = blobs.index(b"\n", position)
        size = int(blobs[position:header_end].split()[2])
        body = blobs[header_end + 1 : header_end + 1 + size]
        position = header_end + 1 + size + 1
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if mode == "120000":
            target.symlink_to(os.fsdecode(body))
            continue
        target.write_bytes(body)
        if mode == "100755":
            target.chmod(0o755)
    return missing


def _git_apply(text: bytes, dest: Path, *flags: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "apply", *flags, "-v", "-"], input=text, cwd=dest, capture_output=True, check=False
    )


def apply_patches(sdk: Path, sdk_commit: str, patches: Iterable[str], dest: Path) -> str:
    """Apply each hand patch to dest; returns how it applied.

    Plain `git apply` first; where that fails, `--whitespace=fix` (which also matches context
    lines that differ in trailing whitespace, as the DrivingSDK READMEs do), with `--reject`
    so the hunks that still do not fit are left in .rej files and counted.
    """
    notes: list[str] = []
    for patch in patches:
        text = _git(sdk, "show", f"{sdk_commit}:{patch}")
        how = "git apply"
        if _git_apply(text, dest, "--check").returncode == 0:
            done = _git_apply(text, dest)
        else:
            how = "git apply --reject --whitespace=fix"
            done = _git_apply(text, dest, "--reject", "--whitespace=fix")
        log = done.stderr.decode(errors="replace").splitlines()
        cleanly = sum(1 for line in log if line.startswith("Applied patch") and "cleanly" in line)
        partly = sum(1 for line in log if line.startswith("Applying patch") and "reject" in line)
        rejected = sum(1 for line in log if line.startswith("Rejected hunk"))
        notes.append(
            f"{Path(patch).name} ({how}): {cleanly} files clean, {partly} files partly,"
            f" {rejected} hunks rejected"
        )
    return " | ".join(notes)


# ----------------------------------------------------------------------------- running


def tool_command(tool: Path) -> tuple[list[str], dict[str, str]]:
    python = tool / ".venv" / "bin" / "python"
    env = dict(os.environ, PYTHONPATH=str(tool))
    return [str(python) if python.is_file() else sys.executable, "-m", "migrator"], env


def run_tool(tool: Path, args: Sequence[str], cwd: Path) -> tuple[int, float, str]:
    command, env = tool_command(tool)
    start = time.perf_counter()
    done = subprocess.run(
        [*command, *args], env=env, capture_output=True, text=True, cwd=cwd, check=False
    )
    return done.returncode, time.perf_counter() - start, done.stderr


def tool_revision(tool: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(tool), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"


def prepare(project: Project, clones: Path, sdk: Path, work: Path) -> tuple[list[str], str]:
    """Fresh WORK/NAME/upstream and WORK/NAME/patched; returns the missing blobs, patch notes."""
    base = work / project.name
    if base.exists():
        shutil.rmtree(base)
    repo = find_clone(clones, project.upstream)
    missing = export_tree(repo, project.commit, base / "upstream")
    export_tree(repo, project.commit, base / "patched")
    sdk_commit = project.driving_sdk_commit or "HEAD"
    return missing, apply_patches(sdk, sdk_commit, project.patches, base / "patched")


def run_project(project: Project, clones: Path, sdk: Path, work: Path, tool: Path) -> ProjectScore:
    sites_file = HERE / "sites" / f"{project.name}.toml"
    if not sites_file.is_file():
        raise DataError(f"{project.name}: no site file {sites_file} (write it before running)")
    sites, verdicts = load_sites(sites_file)
    base = work / project.name
    missing, notes = prepare(project, clones, sdk, work)
    pristine, patched, out = base / "upstream", base / "patched", base / "out"
    prefix = f"{project.subdir.strip('/')}/" if project.subdir else ""
    report_path, check_path = base / "report.json", base / "check.json"
    out_root = out / prefix
    exit_code, seconds, _ = run_tool(
        tool,
        [
            str(pristine / prefix),
            "--out",
            str(out_root),
            "--report",
            str(report_path),
            "--no-cache",
        ],
        base,
    )
    check_exit, _, _ = run_tool(
        tool, [str(out_root), "--check", "--report", str(check_path), "--no-cache"], base
    )
    report = json.loads(report_path.read_text()) if report_path.is_file() else {}
    second = json.loads(check_path.read_text()) if check_path.is_file() else {}
    result = score(project.name, sites, verdicts, report, pristine, out, patched, prefix)
    result.seconds = seconds
    result.tool_exit = exit_code
    result.check_exit = check_exit
    result.second_run_changes = int(second.get("summary", {}).get("edits", 0))
    result.patch_notes = notes
    result.missing_files = missing
    return result


# ----------------------------------------------------------------------------- output


def _ratio(done: int, total: int) -> str:
    return f"{done}/{total} ({100 * done / total:.0f}%)" if total else "-"


HEADER = (
    "project",
    "M recall",
    "W coverage",
    "useful",
    "noise",
    "wrong",
    "unjudged",
    "broken",
    "second-run",
    "time s",
)


def _row(name: str, scores: Sequence[ProjectScore]) -> list[str]:
    def total(get: Any) -> int:
        return sum(int(get(s)) for s in scores)

    m = (total(lambda s: s.satisfied("M")[0]), total(lambda s: s.satisfied("M")[1]))
    w = (total(lambda s: s.satisfied("W")[0]), total(lambda s: s.satisfied("W")[1]))
    return [
        name,
        _ratio(*m),
        _ratio(*w),
        *(str(total(lambda s, c=c: s.count(c))) for c in ("useful", "noise", "wrong", "unjudged")),
        str(total(lambda s: len(s.broken))),
        str(total(lambda s: s.second_run_changes)),
        f"{sum(s.seconds for s in scores):.1f}",
    ]


def table(scores: Sequence[ProjectScore]) -> str:
    """A Markdown table: one row per project and a total."""
    rows = [list(HEADER), ["---"] * len(HEADER)]
    rows += [_row(score.name, [score]) for score in scores]
    if len(scores) > 1:
        rows.append(_row("**total**", scores))
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def as_json(scores: Sequence[ProjectScore], tool: str) -> dict[str, Any]:
    def project(score: ProjectScore) -> dict[str, Any]:
        return {
            "name": score.name,
            "M": list(score.satisfied("M")),
            "W": list(score.satisfied("W")),
            "counts": {c: score.count(c) for c in (*VERDICTS, "unjudged")},
            "on_sites": sum(1 for j in score.items if j.category.startswith("site:")),
            "broken": score.broken,
            "second_run_changes": score.second_run_changes,
            "seconds": round(score.seconds, 2),
            "tool_exit": score.tool_exit,
            "check_exit": score.check_exit,
            "patch": score.patch_notes,
            "missing_files": score.missing_files,
            "sites": [
                {
                    "id": r.site.id,
                    "file": r.site.file,
                    "class": r.site.cls,
                    "check": r.site.check,
                    "satisfied": r.satisfied,
                    "hand_port_satisfies": r.hand_port_satisfies,
                    "hand_port_wrong": r.site.hand_port_wrong,
                }
                for r in score.sites
            ],
            "items": [
                {**asdict(j.item), "category": j.category, "why": j.why} for j in score.items
            ],
        }

    return {"tool": tool, "projects": [project(score) for score in scores]}


def markdown(scores: Sequence[ProjectScore], tool: str, command: str) -> str:
    """The table, how each patch applied, and the wrong edits and broken outputs to fix."""
    lines = [f"Tool at `{tool}`, made with:", "", "```sh", command, "```", "", table(scores), ""]
    lines += ["## How each hand patch applied", ""]
    for score in scores:
        exits = f"; migrate exit {score.tool_exit}, --check exit {score.check_exit}"
        lines.append(f"- **{score.name}**: {score.patch_notes}{exits}")
    lines += ["", "## Wrong edits (the next rule work must fix these)", ""]
    wrong = [(s.name, j) for s in scores for j in s.items if j.category == "wrong"]
    for name, judged in wrong:
        item = judged.item
        lines.append(f"- {name}: `{item.file}:{item.line}` {item.code}: {judged.why}")
    if not wrong:
        lines.append("None.")
    lines += ["", "## Broken outputs", ""]
    broken = [f"- {s.name}: `{path}`" for s in scores for path in s.broken]
    lines += broken or ["None."]
    return "\n".join(lines) + "\n"
