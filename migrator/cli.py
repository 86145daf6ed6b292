"""The `migrate` command: flags, output and exit codes (the only layer that prints).

Exit codes: 0 done; 1 changes pending (`--dry-run`, `--check`); 2 usage or input error,
including any file that could not be read or parsed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import click

from migrator import __version__, registry
from migrator.diff import colour, unified
from migrator.engine import Settings, default_jobs
from migrator.model import (
    Change,
    FileResult,
    MigrationWarning,
    RunSummary,
    Status,
    Suppression,
)
from migrator.report import RunInfo, write_report
from migrator.rule import RuleOptions
from migrator.selection import SelectionError, select, split_codes
from migrator.session import (
    SessionError,
    check_out_dir,
    choose_profile,
    finish,
    migrate,
    plan,
    uncommitted,
    write_copy,
    write_in_place,
)
from migrator.target import TARGETS

EXIT_OK = 0
EXIT_PENDING = 1
EXIT_ERROR = 2
PROGRESS_THRESHOLD = 20


class _DefaultGroup(click.Group):
    """`migrate PATH ...` runs the migration; `migrate smoke` / `migrate run` are commands."""

    default_name = "migrate"

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] not in self.commands or args[0] == self.default_name:
            args = [self.default_name, *args] if args[:1] != [self.default_name] else args
        return super().parse_args(ctx, args)


class _MainCommand(click.Command):
    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        path = ctx.parent.command_path if ctx.parent is not None else ctx.command_path
        formatter.write_usage(path, " ".join(self.collect_usage_pieces(ctx)))


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Migrate CUDA PyTorch projects to Huawei Ascend NPUs."""


class _Out:
    """Where lines go: the progress bar's console while it is live, else click."""

    def __init__(self, quiet: bool, verbose: bool) -> None:
        self.quiet = quiet
        self.verbose = verbose
        self.console: Any = None

    def err(self, text: str) -> None:
        if self.console is not None:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            click.echo(text, err=True)

    def out(self, text: str) -> None:
        if self.console is not None:
            self.console.file.flush()
        click.echo(text, nl=False)


def _display(root: Path, rel: str) -> str:
    full = root / rel
    try:
        shown = os.path.relpath(full)
    except ValueError:
        return str(full)
    return str(full) if shown.startswith("..") else shown


def _change_line(change: Change | MigrationWarning | Suppression, shown: str) -> str:
    text = change.format()
    return shown + text[len(change.path) :]


def _print_rules() -> None:
    loaded = registry.load()
    rows = [
        (rule.code, rule.name, rule.safety.value, loaded.packages[rule], rule.summary)
        for rule in loaded.rules
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [row[i].ljust(widths[i]) for i in range(4)]
        click.echo("  ".join([*cells, row[4]]))
    click.echo("\nProfiles:")
    for profile in loaded.profiles:
        click.echo(f"  {profile.name}: {profile.summary}")


def _explain(code: str) -> int:
    rule = registry.load().by_code(code)
    if rule is None:
        click.echo(f"error: unknown rule code {code!r} (see --list-rules)", err=True)
        return EXIT_ERROR
    click.echo(f"{rule.code} {rule.name} ({rule.safety.value})\n")
    click.echo(rule.explain())
    for example in rule.examples:
        click.echo("\nBefore:\n" + _indent(example.before))
        after = "(unchanged)\n" if example.after is None else _indent(example.after)
        click.echo("After:\n" + after)
    return EXIT_OK


def _indent(text: str) -> str:
    return "".join(f"    {line}" for line in text.splitlines(keepends=True))


def _selected_rules(
    profile_rules: Sequence[Any], select_: Sequence[str], ignore: Sequence[str]
) -> tuple[str, ...]:
    loaded = registry.load()
    chosen = select(profile_rules, split_codes(select_), split_codes(ignore), loaded.rules)
    return tuple(rule.code for rule in chosen)


@main.command(name="migrate", cls=_MainCommand, epilog=(
    "Other commands: 'migrate smoke PATH' checks that a migrated DiT4DiT checkout trains; "
    "'migrate run --emulate-npu -- SCRIPT ARGS' runs a script on the CPU-backed NPU emulator."
))  # fmt: skip
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--target",
    "target_name",
    type=click.Choice(sorted(TARGETS)),
    default="npu",
    show_default=True,
    help="Device to migrate to.",
)
@click.option(
    "--profile",
    "profile_name",
    default="auto",
    show_default=True,
    help="Rule profile: 'auto' picks one when the tree matches (else 'generic').",
)
@click.option("--dry-run", is_flag=True, help="Write nothing; print the unified diff and edits.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if anything would change.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="Write a migrated copy of the whole tree to DIR; PATH is not touched.",
)
@click.option(
    "--allow-dirty", is_flag=True, help="Rewrite files even if they have uncommitted git changes."
)
@click.option(
    "--select",
    "select_",
    multiple=True,
    metavar="CODES",
    help="Only rules whose code starts with one of these (comma-separated).",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="CODES",
    help="Skip rules whose code starts with one of these (comma-separated).",
)
@click.option(
    "--entry",
    "entries",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Treat FILE as an entry script (repeatable); default: detected.",
)
@click.option(
    "--no-transfer-to-npu",
    is_flag=True,
    help="Do not add the transfer_to_npu safety net to entry scripts.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Files in parallel (default: number of cores).",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Write a report: JSON, or Markdown for .md, SARIF for .sarif.",
)
@click.option("--list-rules", is_flag=True, help="List the rules and profiles, then exit.")
@click.option("--explain", "explain_code", metavar="CODE", help="Explain a rule, then exit.")
@click.option("--quiet", "-q", is_flag=True, help="Only errors and the summary line.")
@click.option("--verbose", "-v", is_flag=True, help="Also unchanged files, suppressions, skips.")
@click.option(
    "--full-parse",
    is_flag=True,
    hidden=True,
    help="Parse every file fully with LibCST (the slow reference path).",
)
@click.version_option(__version__, prog_name="npu-migrator")
def migrate_command(
    path: Path | None,
    target_name: str,
    profile_name: str,
    dry_run: bool,
    check: bool,
    out_dir: Path | None,
    allow_dirty: bool,
    select_: tuple[str, ...],
    ignore: tuple[str, ...],
    entries: tuple[Path, ...],
    no_transfer_to_npu: bool,
    jobs: int | None,
    report_path: Path | None,
    list_rules: bool,
    explain_code: str | None,
    quiet: bool,
    verbose: bool,
    full_parse: bool,
) -> None:
    """Migrate the CUDA PyTorch project at PATH (a folder or a file) to the NPU."""
    if list_rules:
        _print_rules()
        sys.exit(EXIT_OK)
    if explain_code:
        sys.exit(_explain(explain_code))
    if path is None:
        raise click.UsageError("missing PATH (a project folder or a Python file)")
    if not path.exists():
        raise click.UsageError(f"{path}: no such file or folder")
    if out_dir is not None and (dry_run or check):
        raise click.UsageError(
            "--out writes files; it cannot be combined with --dry-run or --check"
        )
    sys.exit(
        _run(
            path,
            target_name,
            profile_name,
            dry_run,
            check,
            out_dir,
            allow_dirty,
            select_,
            ignore,
            entries,
            no_transfer_to_npu,
            jobs or default_jobs(),
            report_path,
            _Out(quiet, verbose),
            full_parse,
        )
    )


def _entry_points(root: Path, entries: Sequence[Path]) -> tuple[str, ...]:
    found: list[str] = []
    for entry in entries:
        full = entry.resolve()
        if not full.is_file():
            raise click.UsageError(f"{entry}: --entry must name an existing file")
        try:
            found.append(full.relative_to(root).as_posix())
        except ValueError:
            raise click.UsageError(f"{entry}: --entry must be inside {root}") from None
    return tuple(found)


def _run(
    path: Path, target_name: str, profile_name: str, dry_run: bool, check: bool,
    out_dir: Path | None, allow_dirty: bool, select_: Sequence[str], ignore: Sequence[str],
    entries: Sequence[Path], no_transfer: bool, jobs: int, report_path: Path | None, out: _Out,
    full: bool,
) -> int:  # fmt: skip
    root = path.resolve() if path.is_dir() else path.resolve().parent
    try:
        profile = choose_profile(profile_name, root)
        profile_rules = registry.load().for_profile(profile)
        codes = _selected_rules(profile_rules, select_, ignore)
    except (SessionError, SelectionError) as error:
        raise click.UsageError(str(error)) from None
    options = RuleOptions(
        entry_points=_entry_points(root, entries), transfer_to_npu=not no_transfer
    )
    settings = Settings(TARGETS[target_name], codes, options, full=full)
    if out_dir is not None:
        try:
            check_out_dir(root, out_dir)
        except SessionError as error:
            out.err(f"error: {error}")
            return EXIT_ERROR
    the_plan = plan(path, settings, profile, jobs)
    writes = not (dry_run or check)
    summary = RunSummary()
    pending: list[FileResult] = []
    if out.verbose:
        out.err(f"profile {profile.name}: {len(codes)} rules, {len(the_plan.tree.files)} files")
    with ExitStack() as stack:
        advance = _progress(stack, out, the_plan)
        for result in migrate(the_plan):
            finish(summary, result)
            _show(result, the_plan.root, out, dry_run)
            if result.new_data is not None and writes:
                pending.append(result)
            advance()
    if writes and out_dir is None and not allow_dirty:
        dirty = uncommitted(the_plan.root, [r.path for r in pending if r.status is Status.CHANGED])
        if dirty:
            out.err(
                f"error: {_display(the_plan.root, dirty[0])}: refusing to rewrite "
                f"{len(dirty)} file(s) with uncommitted changes; commit or stash them, "
                "or pass --allow-dirty"
            )
            return EXIT_ERROR
    if writes:
        if out_dir is not None:
            write_copy(the_plan, out_dir, pending)
        else:
            write_in_place(the_plan.root, pending)
    if out.verbose:
        for item in the_plan.tree.skipped:
            out.err(f"{_display(the_plan.root, item.path)}: skipped ({item.reason})")
    if report_path is not None:
        mode = "check" if check else "dry-run" if dry_run else "out" if out_dir else "in-place"
        info = RunInfo(str(the_plan.root), target_name, profile.name, mode, codes)
        write_report(report_path, info, summary, the_plan.tree.skipped)
    out.err(summary.line())
    if summary.failed:
        return EXIT_ERROR
    if (dry_run or check) and (summary.changed or summary.created):
        return EXIT_PENDING
    return EXIT_OK


def _progress(stack: ExitStack, out: _Out, the_plan: Any) -> Any:
    from migrator.session import count

    if out.quiet or not sys.stderr.isatty():
        return lambda: None
    total = count(the_plan) + len(the_plan.profile.steps)
    if total < PROGRESS_THRESHOLD:
        return lambda: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    progress = stack.enter_context(
        Progress(
            TextColumn("migrating"),
            BarColumn(),
            MofNCompleteColumn(),
            console=Console(stderr=True),
            transient=True,
        )
    )
    task = progress.add_task("files", total=total)
    out.console = progress.console
    stack.callback(lambda: setattr(out, "console", None))
    return lambda: progress.advance(task)


def _show(result: FileResult, root: Path, out: _Out, dry_run: bool) -> None:
    shown = _display(root, result.path)
    if result.status is Status.FAILED:
        out.err(f"error: {shown}: {result.error}")
        return
    if out.quiet:
        return
    if dry_run and result.new_data is not None:
        label = result.path if os.path.isabs(shown) else shown
        out.out(colour(unified(result, label)))
    for change in result.changes:
        out.err(_change_line(change, shown))
    for warning in result.warnings:
        out.err(_change_line(warning, shown))
    if result.status is Status.CREATED and not result.changes:
        out.err(f"{shown}: created")
    if out.verbose:
        for item in result.suppressed:
            out.err(f"{_change_line(item, shown)} by a migrate: ignore comment")
        for item in result.unused_suppressions:
            cell = f":cell {item.cell}" if item.cell is not None else ""
            out.err(f"{shown}{cell}:{item.line}: unused suppression ({item.code})")
        for note in result.notes:
            out.err(f"{shown}: {note}")
