"""The `migrate` command: flags, output and exit codes (the only layer that prints).

Exit codes (the README's table says the same): 0 done; 1 changes pending (`--dry-run`,
`--check`) and nothing else; 2 usage or input error, including a refusal to rewrite and any
file that could not be read or parsed or that changed during the run; 3 could not write
(nothing was written); 70 internal error (a bug in the tool); 128 + N killed by signal N
(SIGINT, SIGTERM) after cleaning up.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, ClassVar

import click

from migrator import __version__
from migrator.core.model import (
    WARNING_NOTE,
    FileResult,
    Finding,
    RunSummary,
    SkippedPath,
    Status,
)
from migrator.core.target import TARGETS
from migrator.engine.config import Config, ConfigError
from migrator.engine.config import load as load_config
from migrator.engine.config import load_file as load_config_file

# What only a run needs (LibCST, the rules, the engine, the reports) is imported inside the
# functions that run it: `migrate --version` and `--help` stay cheap.
if TYPE_CHECKING:
    from migrator.contract.profile import Profile
    from migrator.engine.cache import CacheRef
    from migrator.engine.settings import Settings
    from migrator.engine.writes import Outcome
    from migrator.output.report import RunInfo

EXIT_OK = 0
EXIT_PENDING = 1
EXIT_ERROR = 2
# Nothing was written: a folder was read-only, the disk full, the --report path unwritable.
EXIT_WRITE = 3
# A bug in the tool (EX_SOFTWARE of sysexits.h), not in the project being migrated.
EXIT_INTERNAL = 70
# Interrupted by a signal: 128 + its number, as a shell reports it (130 SIGINT, 143 SIGTERM).
EXIT_SIGNAL_BASE = 128
PATCHERS = ("auto", "mx-driving", "none")
OUTPUT_FORMATS = ("text", "json", "json-lines", "github", "sarif")
PROGRESS_THRESHOLD = 20
DEFAULT_STDIN_NAME = "stdin.py"


class _DefaultGroup(click.Group):
    """`migrate PATH ...` runs the migration; `migrate smoke` / `migrate run` are commands.

    A bare first word names a command (`migrate ./run` migrates a folder named `run`).
    Commands of profile packages (`smoke`) are added only when a bare word may name one,
    so `migrate --version` or `migrate .` loads no profile package to parse its flags.
    """

    default_name = "migrate"
    _loaded = False
    # Built-in commands, imported only when named or listed (a run never needs them).
    lazy: ClassVar[Mapping[str, str]] = {"doctor": "migrator.doctor.command:doctor_command"}

    def _load_lazy(self, *names: str) -> None:
        for name in names:
            reference = self.lazy.get(name)
            if reference is not None and name not in self.commands:
                import importlib

                module, _, attr = reference.partition(":")
                self.add_command(getattr(importlib.import_module(module), attr))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._load_lazy(cmd_name)
        return super().get_command(ctx, cmd_name)

    def _load_plugins(self) -> None:
        if not self._loaded:
            from migrator.engine import registry

            self._loaded = True
            for command in registry.catalog().commands:
                if isinstance(command, click.Command):
                    self.add_command(command)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_lazy(*self.lazy)
        self._load_plugins()
        return super().list_commands(ctx)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args:
            self._load_lazy(args[0])
        if args and args[0] not in self.commands and _bare_word(args[0]):
            self._load_plugins()
        if not args or args[0] not in self.commands or args[0] == self.default_name:
            args = [self.default_name, *args] if args[:1] != [self.default_name] else args
        return super().parse_args(ctx, args)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        standalone = standalone_mode
        try:
            # Errors come back here to be printed: click's own layout buries the error line.
            handled: bool = False
            return super().main(args, prog_name, complete_var, handled, **extra)
        except click.exceptions.Exit as done:
            if not standalone:
                raise
            sys.exit(done.exit_code)
        except click.UsageError as error:
            if not standalone:
                raise
            # One `error:` line, then how to get help (click's own layout buries the line).
            click.echo(f"error: {error.format_message()}", err=True)
            if error.ctx is not None:
                click.echo(error.ctx.get_usage(), err=True)
                click.echo(f"Try '{error.ctx.command_path} --help' for help.", err=True)
            sys.exit(EXIT_ERROR)
        except click.ClickException as error:
            if not standalone:
                raise
            click.echo(f"error: {error.format_message()}", err=True)
            sys.exit(EXIT_ERROR if error.exit_code == 1 else error.exit_code)
        except click.Abort:
            if not standalone:
                raise
            # Ctrl-C before the run started (a run handles its signals itself).
            click.echo("error: interrupted", err=True)
            sys.exit(EXIT_SIGNAL_BASE + 2)
        except Exception as error:
            from migrator.engine.registry import RegistryError

            if not isinstance(error, RegistryError):
                raise
            # A shadowed or broken rule package: one line, never a traceback.
            click.echo(f"error: {error}", err=True)
            sys.exit(EXIT_ERROR)


def _bare_word(arg: str) -> bool:
    return re.fullmatch(r"[a-z][a-z0-9-]*", arg) is not None


class _MainContext(click.Context):
    """The default command is invisible: its path is the group's (`migrate`, not `migrate
    migrate`), in the usage line and in "Try 'migrate --help'"."""

    @property
    def command_path(self) -> str:
        if self.parent is not None:
            return self.parent.command_path
        return super().command_path


class _MainCommand(click.Command):
    context_class = _MainContext


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Migrate CUDA PyTorch projects to Huawei Ascend NPUs."""


class _Out:
    """Where lines go: the progress bar's console while it is live, else click; held back
    while a run in place may yet be refused (its edits are then shown as pending)."""

    def __init__(self, quiet: bool, verbose: bool, color: bool | None = None) -> None:
        self.quiet = quiet
        self.verbose = verbose
        self.color = color
        self.console: Any = None
        self.held: list[str] | None = None
        # What the run is doing, for an internal error's message.
        self.stage = "starting"
        # Every registered code (rules, steps, aliases): a suppression naming another warns.
        self.known: tuple[str, ...] = ()
        # Each changed file's fix edits (finding index -> edits), for the JSON formats.
        self.fixes: dict[str, dict[int, list[dict[str, object]]]] = {}
        # The run writes nothing (--dry-run, --check): lines say what "would" happen.
        self.pending = False

    def hold(self) -> None:
        self.held = []

    def release(self) -> list[str]:
        held, self.held = self.held or [], None
        return held

    def err(self, text: str) -> None:
        if self.held is not None:
            self.held.append(text)
        elif self.console is not None:
            self.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            click.echo(_marked(text), err=True, color=self.color)

    def out(self, text: str) -> None:
        if self.console is not None:
            self.console.file.flush()
        click.echo(text, nl=False, color=self.color)


_MARKS = re.compile(r"\b(error:|warning:)|(\[needs review\])")


def _marked(text: str) -> str:
    """`error:` red, `warning:` yellow, `[needs review]` magenta (click strips the colour
    when it is off or stderr is no terminal)."""

    def style(match: re.Match[str]) -> str:
        if match.group(2):
            return click.style(match.group(2), fg="magenta", bold=True)
        fg = "red" if match.group(1) == "error:" else "yellow"
        return click.style(match.group(1), fg=fg, bold=True)

    return _MARKS.sub(style, text)


def _display(root: Path, rel: str) -> str:
    """A file as the output names it: relative to the working directory when it is under
    it, else its path as given."""
    full = root / rel
    parts = rel.split("/")
    if not ("" in parts or "." in parts or ".." in parts):
        # A walked file's name (most calls, one per file): `relpath` read the working
        # directory and made both paths absolute each time (0.06 CPU s over torch).
        place = _root_place(str(root), os.getcwd())
        if place == "outside":
            return str(full)
        if place is not None:
            shown = rel if place == "." else f"{place}/{rel}"
            # As below: a name that starts with ".." (`..x.py`) is shown by its path too.
            return str(full) if shown.startswith("..") else shown
    try:
        shown = os.path.relpath(full)
    except ValueError:
        return str(full)
    return str(full) if shown.startswith("..") else shown


@functools.lru_cache(maxsize=16)
def _root_place(root: str, cwd: str) -> str | None:
    """Where `_display` puts the files under `root`, for a working directory `cwd`:
    "outside" where neither holds the other (`relpath` of any of them leads out with
    ".."), the root's own path relative to `cwd` where `cwd` holds it, None where `root`
    holds `cwd` (a file's place then depends on which folder it is in)."""
    absolute = os.path.abspath(root)
    if absolute == cwd or absolute.startswith(cwd.rstrip("/") + "/"):
        return os.path.relpath(absolute, cwd)
    if cwd.startswith(absolute.rstrip("/") + "/"):
        return None
    return "outside"


def _change_line(change: Finding, shown: str) -> str:
    text = change.format()
    return shown + text[len(change.path) :]


def _print_rules() -> None:
    from migrator.engine import registry
    from migrator.output.docs import fix_safety

    loaded = registry.load()
    rows = [("CODE", "NAME", "FIX", "SAFETY", "PACKAGE", "SUMMARY")]
    rows += [
        (rule.code, rule.name, rule.fix_availability.value, fix_safety(rule),
         loaded.packages[rule], rule.summary)
        for rule in loaded.rules
    ]  # fmt: skip
    for profile in loaded.profiles:
        package = profile.packages[0] if profile.packages else profile.name
        rows += [
            (step.code, step.name, "always", "step", package, step.summary)
            for step in profile.steps
        ]
    rows = [rows[0], *sorted(set(rows[1:]))]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        cells = [row[i].ljust(widths[i]) for i in range(5)]
        click.echo("  ".join([*cells, row[5]]))
    click.echo("\nProfiles:")
    for profile in loaded.profiles:
        click.echo(f"  {profile.name}: {profile.summary}")


def _explain(code: str) -> int:
    # `--explain "NPU-TODO(NPU050)"` works too: the code is read out of a TODO comment.
    from migrator.engine import registry

    found = re.search(r"[A-Za-z]{3}\d{3}", code)
    loaded = registry.load()
    wanted = (found.group(0) if found else code).upper()
    wanted = loaded.aliases.get(wanted, wanted)
    step = loaded.step(wanted)
    if step is not None:
        click.echo(f"{step.code} {step.name} (profile step)\n")
        click.echo(step.explain())
        return EXIT_OK
    rule = loaded.by_code(wanted)
    if rule is None:
        click.echo(f"error: unknown rule code {code!r} (see --list-rules)", err=True)
        return EXIT_ERROR
    click.echo(f"{rule.code} {rule.name} ({rule.safety.value})\n")
    click.echo(rule.explain())
    for example in rule.examples:
        click.echo("\nBefore:\n" + _indent(example.before))
        if example.after is None:
            after = "(unchanged)\n"
        elif example.after == example.before:
            after = "(unchanged; reported as a warning)\n"
        else:
            after = _indent(example.after)
        click.echo("After:\n" + after)
    return EXIT_OK


def _indent(text: str) -> str:
    return "".join(f"    {line}" for line in text.splitlines(keepends=True))


def _codes(values: Sequence[str], origin: str, out: _Out) -> list[str]:
    """Codes and prefixes as given, retired codes mapped to their successors (with a warning)."""
    from migrator.engine import registry
    from migrator.engine.selection import renamed, split_codes

    codes, notes = renamed(split_codes(values), registry.catalog().aliases)
    for note in notes:
        out.err(f"warning: {origin}: {note}")
    return codes


class _Failure(Exception):
    """A run that cannot start: one `error:` line and exit code 2 (no usage text)."""


@dataclass(frozen=True)
class _Request:
    """The flags of one run, as given (None where a flag was not given)."""

    path: Path
    target_name: str
    profile_name: str | None
    mode: str
    out_dir: Path | None
    allow_dirty: bool
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    entries: tuple[Path, ...]
    no_entries: tuple[Path, ...]
    exclude: tuple[str, ...]
    transfer: bool | None
    patcher: str | None
    annotate: bool | None
    stdin_name: str | None
    cache: bool
    # None: the engine decides from the work (migrator.engine.files.auto_jobs).
    jobs: int | None
    report_path: Path | None
    full: bool
    # The `[tool.migrate]` that applies (or why it cannot be read), and the keys whose
    # value came from it rather than from a flag.
    config: Config = field(default_factory=Config)
    config_error: str | None = None
    from_config: frozenset[str] = frozenset()
    torch_npu: str | None = None
    allow_no_vcs: bool = False
    output_format: str = "text"
    # Print the diff on stdout (--dry-run in text output, or --diff).
    diff: bool = False
    statistics: bool = False
    exit_zero: bool = False
    fail_on_warning: bool = False
    safe_only: bool = False

    @property
    def writes(self) -> bool:
        return self.mode in ("in-place", "out")

    def origin(self, key: str) -> str:
        """Where a setting came from, for error messages: its flag or its config key."""
        return self.config.where(key) if key in self.from_config else _FLAGS[key]

    def checked_config(self) -> Config:
        if self.config_error is not None:
            raise _Failure(self.config_error)
        return self.config


@dataclass(frozen=True)
class _Resolved:
    """Flags merged over `[tool.migrate]`: what the run does."""

    root: Path
    config: Config
    profile: Profile
    settings: Settings
    exclude: tuple[str, ...]
    exclude_base: str


# `[tool.migrate]` key -> (Config field, the parameter whose default it is, the flag).
_CONFIG_KEYS = {
    "select": ("select", "select_", "--select"),
    "ignore": ("ignore", "ignore", "--ignore"),
    "entry": ("entry", "entries", "--entry"),
    "no-entry": ("no_entry", "no_entries", "--no-entry"),
    "profile": ("profile", "profile_name", "--profile"),
    "exclude": ("exclude", "exclude", "--exclude"),
    "annotate": ("annotate", "annotate", "--annotate"),
    "transfer-to-npu": ("transfer_to_npu", "transfer", "--transfer-to-npu"),
    "torch-npu": ("torch_npu", "torch_npu", "--torch-npu"),
    "patcher": ("patcher", "patcher", "--patcher"),
    "safe-only": ("safe_only", "safe_only", "--safe-only"),
}
_FLAGS = {key: flag for key, (_, _, flag) in _CONFIG_KEYS.items()}
_META = "npu_migrator.config"


@dataclass
class _Layered:
    """What the eager PATH and --stdin-filename callbacks have seen, and the config found."""

    path: Path | None = None
    stdin_name: str | None = None
    config_file: Path | None = None
    isolated: bool = False
    config: Config = field(default_factory=Config)
    error: str | None = None


def _config_start(path: Path | None, stdin_name: str | None) -> Path | None:
    """Where the `[tool.migrate]` lookup starts: the migrated folder (a file's folder); for
    stdin the folder of --stdin-filename, else the current one."""
    if path is None:
        return None
    if str(path) == "-":
        full = Path(os.path.abspath(stdin_name or DEFAULT_STDIN_NAME))
        return full.parent if full.parent.is_dir() else Path.cwd()
    if not path.exists():
        return None
    return path.resolve() if path.is_dir() else path.resolve().parent


def _layer_config(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Put `[tool.migrate]` under the flags as click's `default_map` (as black does).

    PATH, --stdin-filename, --config and --isolated are eager, so this runs before any
    other option is read (once per eager value seen, the last call with all of them); a flag
    given on the command line then wins over its key. A config that cannot be read is kept
    as an error and reported when the run starts (after the usage checks).
    """
    layered = ctx.meta.setdefault(_META, _Layered())
    if param.name == "path":
        layered.path = value
    elif param.name == "config_file":
        layered.config_file = value
    elif param.name == "isolated":
        layered.isolated = bool(value)
    else:
        layered.stdin_name = value
    layered.config, layered.error = Config(), None
    start = _config_start(layered.path, layered.stdin_name)
    try:
        if layered.isolated:
            pass
        elif layered.config_file is not None:
            layered.config = load_config_file(layered.config_file)
        elif start is not None:
            layered.config = load_config(start)
    except ConfigError as error:
        layered.error = str(error)
    defaults = {}
    for attribute, name, _ in _CONFIG_KEYS.values():
        configured = getattr(layered.config, attribute)
        if configured is not None:
            defaults[name] = configured
    ctx.default_map = defaults
    return value


@main.command(name="migrate", cls=_MainCommand, epilog=(
    "The bare words 'run' and 'smoke' name the commands below; 'migrate ./run' migrates a "
    "folder named 'run'. "
    "Configuration: [tool.migrate] in the nearest pyproject.toml that has one (flags win). "
    "Other commands: 'migrate smoke PATH' checks that a migrated DiT4DiT checkout trains; "
    "'migrate run --emulate-npu -- SCRIPT ARGS' runs a script on the CPU-backed NPU emulator."
))  # fmt: skip
@click.argument(
    "path",
    required=False,
    type=click.Path(path_type=Path, allow_dash=True),
    is_eager=True,
    callback=_layer_config,
)
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
    default=None,
    metavar="NAME",
    help="Rule profile: 'auto' (default) picks one when the tree matches, else 'generic'.",
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
    "--allow-no-vcs",
    is_flag=True,
    help="Rewrite in place even outside a git work tree (no undo: nothing holds a copy).",
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
    "--no-entry",
    "no_entries",
    multiple=True,
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Never set up FILE as an entry script, even when launched or detected (repeatable).",
)
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Leave out paths matching GLOB, relative to PATH (repeatable).",
)
@click.option(
    "--transfer-to-npu/--no-transfer-to-npu",
    "transfer",
    default=None,
    help="Add the transfer_to_npu safety net to entry scripts (default: on).",
)
@click.option(
    "--patcher",
    type=click.Choice(PATCHERS),
    default=None,
    help="mx_driving's default patcher at entries: 'auto' (default: where the project "
    "imports mmcv/mmdet/mmdet3d, or its profile asks), 'mx-driving' (always), 'none'.",
)
@click.option(
    "--safe-only/--no-safe-only",
    default=False,
    help="Make only the edits that need no review; report the others as warnings "
    "(default: off; [tool.migrate] safe-only).",
)
@click.option(
    "--annotate/--no-annotate",
    default=None,
    help="Leave a '# NPU-TODO(CODE): action' comment above each warning (default: off).",
)
@click.option(
    "--torch-npu",
    "torch_npu",
    default=None,
    metavar="VERSION",
    help="The torch-npu release to migrate for (default: from the project's torch-npu or "
    "torch pin, else the newest 2.7.1.postN in the data).",
)
@click.option(
    "--stdin-filename",
    "stdin_name",
    metavar="NAME",
    is_eager=True,
    callback=_layer_config,
    help="With PATH '-': the name of the code read on stdin (messages, file type, rules).",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Check every file, ignoring the cache of files unchanged since a clean run.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: as many as pay for the work, on idle cores).",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Write a report: JSON, or Markdown for .md, SARIF for .sarif.",
)
@click.option(
    "--list-rules", is_flag=True, help="List the rules, profile steps and profiles, then exit."
)
@click.option(
    "--explain", "explain_code", metavar="CODE", help="Explain a rule or profile step, then exit."
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Write nothing; print the unified diff on stdout (as --dry-run; with --check too).",
)
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="What stdout carries: the text output, or the findings as json, json-lines, "
    "github (Actions annotations) or sarif.",
)
@click.option(
    "--statistics", is_flag=True, help="Print how often each code was found (text) on stdout."
)
@click.option(
    "--exit-zero", is_flag=True, help="Exit 0 even when changes are pending (errors still fail)."
)
@click.option(
    "--fail-on-warning",
    is_flag=True,
    help="With --check or --dry-run: exit 1 also when only warnings are left.",
)
@click.option(
    "--color",
    "color",
    type=click.Choice(("auto", "always", "never")),
    default="auto",
    show_default=True,
    help="Colour the diff and the 'error:'/'warning:'/'[needs review]' marks (auto: on a "
    "terminal, unless NO_COLOR is set or FORCE_COLOR is).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    is_eager=True,
    expose_value=False,
    callback=_layer_config,
    help="Read the settings from FILE ([tool.migrate], or top-level keys) instead of the "
    "nearest pyproject.toml.",
)
@click.option(
    "--isolated",
    is_flag=True,
    is_eager=True,
    callback=_layer_config,
    help="Read no configuration file: the flags and the defaults only.",
)
@click.option("--quiet", "-q", is_flag=True, help="Only errors and the summary line.")
@click.option(
    "--verbose", "-v", is_flag=True, help="Also suppressions, skipped paths, config and cache."
)
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
    profile_name: str | None,
    dry_run: bool,
    check: bool,
    out_dir: Path | None,
    allow_dirty: bool,
    allow_no_vcs: bool,
    select_: tuple[str, ...],
    ignore: tuple[str, ...],
    entries: tuple[Path, ...],
    no_entries: tuple[Path, ...],
    exclude: tuple[str, ...],
    transfer: bool | None,
    patcher: str | None,
    safe_only: bool,
    annotate: bool | None,
    torch_npu: str | None,
    stdin_name: str | None,
    no_cache: bool,
    jobs: int | None,
    report_path: Path | None,
    list_rules: bool,
    explain_code: str | None,
    show_diff: bool,
    output_format: str,
    statistics: bool,
    exit_zero: bool,
    fail_on_warning: bool,
    color: str,
    isolated: bool,
    quiet: bool,
    verbose: bool,
    full_parse: bool,
) -> None:
    """Migrate the CUDA PyTorch project at PATH (a folder, a file, or '-' for stdin)."""
    if list_rules:
        _print_rules()
        sys.exit(EXIT_OK)
    if explain_code:
        sys.exit(_explain(explain_code))
    if path is None:
        raise click.UsageError("missing PATH (a project folder, a file, or '-' for stdin)")
    stdin = str(path) == "-"
    if stdin_name is not None and not stdin:
        raise click.UsageError("--stdin-filename needs PATH '-' (the code is read on stdin)")
    if not stdin and not path.exists():
        raise click.UsageError(f"{path}: no such file or folder")
    if out_dir is not None and (dry_run or check):
        raise click.UsageError(
            "--out writes files; it cannot be combined with --dry-run or --check"
        )
    if stdin and out_dir is not None:
        raise click.UsageError("--out cannot be used with stdin: the result goes to stdout")
    if dry_run and check:
        raise click.UsageError("choose one of --dry-run and --check")
    if quiet and verbose:
        raise click.UsageError("choose one of --quiet and --verbose")
    machine = output_format != "text"
    if stdin and (machine or statistics):
        flag = "--statistics" if statistics else f"--output-format {output_format}"
        raise click.UsageError(
            f"{flag} cannot be used with stdin: stdout carries the code; use --report FILE"
        )
    if machine and (show_diff or statistics):
        flag = "--diff" if show_diff else "--statistics"
        raise click.UsageError(
            f"{flag} prints text on stdout, which --output-format {output_format} fills"
        )
    if show_diff and out_dir is not None:
        raise click.UsageError("--diff writes nothing; it cannot be combined with --out")
    if isolated and ctx_config_file() is not None:
        raise click.UsageError("choose one of --config and --isolated")
    if report_path is not None and report_path.is_dir():
        raise click.UsageError(
            f"--report {report_path}: is a folder; name a file (.json, .md or .sarif)"
        )
    # The diff: asked for (--diff), or --dry-run's text output (not with -q).
    diff = show_diff or (dry_run and not machine and not quiet)
    dry_run = dry_run or (show_diff and not check)
    mode = "check" if check else "dry-run" if dry_run else "out" if out_dir else "in-place"
    ctx = click.get_current_context()
    layered = ctx.meta.get(_META, _Layered())
    from_config = frozenset(
        key
        for key, (_, name, _) in _CONFIG_KEYS.items()
        if ctx.get_parameter_source(name) is click.core.ParameterSource.DEFAULT_MAP
    )
    request = _Request(
        path, target_name, profile_name, mode, out_dir, allow_dirty, select_, ignore, entries,
        no_entries, exclude, transfer, patcher, annotate,
        stdin_name or DEFAULT_STDIN_NAME if stdin else None,
        not no_cache, jobs, report_path, full_parse,
        layered.config, layered.error, from_config, torch_npu, allow_no_vcs,
        output_format, diff, statistics, exit_zero,
        fail_on_warning, safe_only,
    )  # fmt: skip
    out = _Out(quiet, verbose, _colour(color))
    out.pending = mode in ("dry-run", "check")
    # Cheap (the standard library only): --help and --version stay fast without it anyway.
    from migrator.engine.interrupts import Interrupted, interruptible

    try:
        with interruptible():
            sys.exit(_run_stdin(request, out) if stdin else _run(request, out))
    except _Failure as failure:
        out.err(f"error: {failure}")
        sys.exit(EXIT_ERROR)
    except click.ClickException:
        raise
    except Exception as error:  # a bug in the tool: one line (the traceback with --verbose)
        from migrator.engine.registry import RegistryError

        if isinstance(error, RegistryError):  # a broken or shadowing rule package: exit 2
            raise
        from migrator.engine.session import StepCrash

        for line in out.release():
            out.err(line)
        if verbose:
            import traceback

            out.err(traceback.format_exc().rstrip())
        stage: str = out.stage
        cause: BaseException = error
        if isinstance(error, StepCrash) and error.__cause__ is not None:
            stage, cause = f"running {error}", error.__cause__
        out.err(
            f"error: internal error ({type(cause).__name__}: {cause}) while {stage}; nothing "
            "half-written is left; please report it (--verbose shows the traceback)"
        )
        sys.exit(EXIT_INTERNAL)
    except Interrupted as stop:
        # Whatever was being written has been put back by the time this is reached.
        out.err(f"error: interrupted by {stop}; no file is left half-written, no temporary is left")
        sys.exit(EXIT_SIGNAL_BASE + stop.signum)


def _entry_points(
    root: Path, entries: Sequence[Path | str], origin: str, base: Path | None = None
) -> tuple[str, ...]:
    found: list[str] = []
    for entry in entries:
        full = (base / entry if base is not None else Path(entry)).resolve()
        if not full.is_file():
            raise _Failure(f"{origin}: {entry}: an entry point must name an existing file")
        try:
            found.append(full.relative_to(root).as_posix())
        except ValueError:
            if origin.startswith("--"):
                raise _Failure(f"{origin}: {entry}: must be inside {root}") from None
    return tuple(found)


def _configured_entries(
    request: _Request, root: Path, key: str, given: Sequence[Path]
) -> tuple[str, ...]:
    if key in request.from_config:
        config = request.config
        return _entry_points(root, given, config.where(key), config.folder)
    return _entry_points(root, given, _FLAGS[key])


def _patcher(request: _Request, profile: Profile) -> str:
    """The patcher the run applies: the flag or key, else the profile's, else "auto".

    Asking for mx_driving without transfer_to_npu is an error: importing mx_driving
    imports transfer_to_npu itself."""
    chosen = request.patcher or "auto"
    if chosen not in PATCHERS:
        raise _Failure(f"{request.origin('patcher')}: unknown patcher {chosen!r} "
                       f"(known: {', '.join(PATCHERS)})")  # fmt: skip
    if chosen == "mx-driving" and request.transfer is False:
        raise _Failure(
            f"{request.origin('patcher')} mx-driving cannot go with "
            f"{request.origin('transfer-to-npu')} off: importing mx_driving imports "
            "transfer_to_npu"
        )
    if chosen == "auto" and profile.patcher is not None:
        return profile.patcher
    return chosen


def _resolve(request: _Request, root: Path, out: _Out) -> _Resolved:
    """What the run does: the flags, with `[tool.migrate]` already under them (click's
    default_map); only paths from the config are read relative to its folder."""
    from migrator.core.options import RuleOptions
    from migrator.engine import registry
    from migrator.engine.selection import SelectionError, select
    from migrator.engine.session import SessionError, choose_profile
    from migrator.engine.settings import Settings

    config = request.config
    try:
        profile = choose_profile(request.profile_name or "auto", root)
    except SessionError as error:
        raise _Failure(f"{request.origin('profile')}: {error}") from None
    # The index, not the rule modules: a run imports a rule only for a file it may act on.
    loaded = registry.catalog()
    out.known = (*loaded.codes, *loaded.aliases)
    profile_rules = loaded.for_profile(profile)
    selected = _codes(request.select, request.origin("select"), out)
    ignored = _codes(request.ignore, request.origin("ignore"), out)
    for given, key in ((selected, "select"), (ignored, "ignore")):
        try:
            select(profile_rules, given, [], loaded.codes)
        except SelectionError as error:
            raise _Failure(f"{request.origin(key)}: {error}") from None
    codes = tuple(rule.code for rule in select(profile_rules, selected, ignored, loaded.codes))
    step_codes = tuple(step.code for step in select(profile.steps, selected, ignored, loaded.codes))
    entries = _configured_entries(request, root, "entry", request.entries)
    no_entries = _configured_entries(request, root, "no-entry", request.no_entries)
    options = RuleOptions(
        entry_points=entries,
        transfer_to_npu=request.transfer is not False,
        no_entry_points=no_entries,
        patcher=_patcher(request, profile),
        device_entries=profile.device_entries,
        safe_only=request.safe_only,
    )
    from migrator.core.project import EMPTY
    from migrator.data.release import UnknownRelease, resolve

    origin = request.origin("torch-npu")
    try:
        # Checked before the walk; the plan chooses again with the project's pins.
        release = resolve(request.torch_npu, explicit_origin=origin)
    except UnknownRelease as error:
        raise _Failure(str(error)) from None
    settings = Settings(
        TARGETS[request.target_name], codes, options, full=request.full,
        annotate=bool(request.annotate), step_codes=step_codes,
        project=replace(EMPTY, release=release), torch_npu=request.torch_npu,
        torch_npu_origin=origin,
    )  # fmt: skip
    base = ""
    if "exclude" in request.from_config and config.folder is not None:
        prefix = root.relative_to(config.folder.resolve()).as_posix()
        base = "" if prefix == "." else prefix + "/"
    return _Resolved(root, config, profile, settings, request.exclude, base)


def _run(request: _Request, out: _Out) -> int:
    from migrator.engine.cache import open_cache
    from migrator.engine.session import (
        SessionError,
        check_out_dir,
        finish,
        migrate,
        plan,
        settle,
    )

    path = request.path
    root = path.resolve() if path.is_dir() else path.resolve().parent
    request.checked_config()
    resolved = _resolve(request, root, out)
    settings, profile = resolved.settings, resolved.profile
    if request.out_dir is not None:
        try:
            check_out_dir(root, request.out_dir)
        except SessionError as error:
            raise _Failure(str(error)) from None
    out.stage = f"reading the project at {_display(root, '.') if path.is_dir() else path}"
    the_plan = plan(path, settings, profile, request.jobs, resolved.exclude, resolved.exclude_base)
    # After the plan: the run key covers the project view the plan computed.
    cache, cache_note = open_cache(the_plan.settings) if request.cache else (None, None)
    the_plan = replace(the_plan, cache=cache)
    _sweep(request, the_plan, out)
    summary = RunSummary()
    pending: list[FileResult] = []
    crashed: list[str] = []
    if out.verbose:
        _describe(out, resolved, len(the_plan.tree.files), cache, cache_note)
    # A run in place may yet be refused: its lines wait until that is known.
    from migrator.engine.walk import git_toplevel

    # The walk asked git already for a folder it listed through git (one process less).
    in_git = the_plan.tree.in_git or git_toplevel(the_plan.root) is not None
    allowed = request.allow_dirty if in_git else request.allow_no_vcs
    refusable = request.mode == "in-place" and not allowed
    if refusable:
        out.hold()
    out.stage = "migrating the files"
    with ExitStack() as stack:
        advance = _progress(stack, out, the_plan)
        for result in migrate(the_plan):
            finish(summary, result)
            shown = _display(the_plan.root, result.path)
            if request.diff:
                _show_diff(result, result.path if os.path.isabs(shown) else shown, out)
            _show(result, shown, out)
            if result.internal:
                crashed.append(result.path)
            if request.output_format in ("json", "json-lines") and result.new_data is not None:
                from migrator.output.findings import fix_edits

                out.fixes[result.path] = fix_edits(result)
            if result.new_data is not None and request.writes:
                pending.append(result)
            advance()
    summary.skipped = len(the_plan.tree.skipped)
    if refusable:
        held = out.release()
        refusal = _refusal(request, the_plan, pending)
        if refusal is not None:
            for line in refusal:
                out.err(f"error: {line}")
            if held:
                out.err("nothing was written; the run would make these edits:")
            for line in held:
                out.err(_pending_line(line))
            _emit(request, the_plan.root, profile, the_plan.settings, summary, out, True)
            out.err(summary.line(pending=True))
            return EXIT_INTERNAL if crashed else EXIT_ERROR
        for line in held:
            out.err(line)
    if request.writes:
        out.stage = f"writing {_n_files(len(pending))}"
        code, outcome = _write(request, the_plan, pending, out)
        if code is not None:
            out.err(summary.line(pending=True))
            return code
        summary = settle(summary, outcome)
        summary.skipped = len(the_plan.tree.skipped)
    if out.verbose:
        for item in the_plan.tree.skipped:
            out.err(f"{_display(the_plan.root, item.path)}: skipped ({item.reason})")
        if cache is not None:
            out.err(f"cache: {_n_files(summary.from_cache)} unchanged since a clean run, skipped")
    out.stage = f"writing the report {request.report_path}"
    try:
        _write_report(
            request, the_plan.root, profile, the_plan.settings, summary, the_plan.tree.skipped
        )
    except OSError as error:
        out.err(f"error: could not write the report: {_os_error(error)}")
        out.err(summary.line())
        return EXIT_WRITE
    _emit(request, the_plan.root, profile, the_plan.settings, summary, out, not request.writes)
    if not out.quiet:
        _show_actions(summary, out)
        out.err(_target_line(the_plan.settings))
    out.err(summary.line(pending=not request.writes))
    return _exit_code(request, summary, crashed)


def _emit(
    request: _Request, root: Path, profile: Profile, settings: Settings, summary: RunSummary,
    out: _Out, pending: bool,
) -> None:  # fmt: skip
    """What stdout carries at the end of a run: --statistics, or a machine format;
    `pending`: nothing was written, so no edit is `fixed`."""
    if not request.statistics and request.output_format == "text":
        return  # most runs: findings (and difflib) are never imported
    from migrator.output import findings

    results = summary.results
    if request.statistics:
        from migrator.engine import registry

        loaded = registry.catalog()
        names = {entry.code: entry.name for entry in loaded.entries}
        names.update({code: step.name for code, step in loaded.steps.items()})
        out.out(findings.statistics(results, names))
    chosen = request.output_format
    if chosen == "json":
        out.out(findings.as_json(results, out.fixes, not pending))
    elif chosen == "json-lines":
        out.out(findings.as_json_lines(results, out.fixes, not pending))
    elif chosen == "github":
        out.out(findings.as_github(results))
    elif chosen == "sarif":
        from migrator.output.sarif import as_sarif

        out.out(as_sarif(_run_info(request, root, profile, settings), summary))


def _refusal(request: _Request, the_plan: Any, pending: Sequence[FileResult]) -> list[str] | None:
    """Why a run in place must not write (one line per reason), or None when it may.

    Outside a git work tree nothing holds a copy of the files (cargo fix's rule: refuse
    unless --allow-no-vcs); inside one, files git holds no clean copy of are refused unless
    --allow-dirty."""
    from migrator.engine.session import uncommitted
    from migrator.engine.walk import git_toplevel

    if not pending:
        return None
    if git_toplevel(the_plan.root) is None:
        if request.allow_no_vcs:
            return None
        first = _display(the_plan.root, pending[0].path)
        return [
            f"{first}: refusing to rewrite {_n_files(len(pending))} in place outside a git "
            "work tree: nothing could undo it; pass --allow-no-vcs to rewrite anyway, or use "
            "--out DIR (a migrated copy) or --dry-run"
        ]
    if request.allow_dirty:
        return None
    changed = [r.path for r in pending if r.status is Status.CHANGED]
    dirty = uncommitted(the_plan.root, changed)
    if not dirty:
        return None
    first = _display(the_plan.root, next(iter(dirty)))
    if all(code == "!!" for code in dirty.values()):
        return [
            f"{first}: refusing to rewrite {len(dirty)} file(s) that git ignores: git holds no "
            "copy of them (the folder is outside version control); pass --allow-dirty to "
            "rewrite them anyway, or use --out"
        ]
    return [
        f"{first}: refusing to rewrite {len(dirty)} file(s) with uncommitted changes (or "
        "that git does not track); commit or stash them, or pass --allow-dirty"
    ]


def _sweep(request: _Request, the_plan: Any, out: _Out) -> None:
    """This tool's temporaries in the tree: a killed run's are removed (by a run that
    rewrites in place), a running one's are left; either way the run says so."""
    temporaries = the_plan.tree.temporaries
    if not temporaries:
        return
    from migrator.engine.writes import sweep

    swept = sweep(the_plan.root, temporaries, remove=request.mode == "in-place")
    if swept.removed:
        done = "removed" if request.mode == "in-place" else "found (a run in place removes them)"
        out.err(
            f"{_n_files(len(swept.removed))} left by a migrate that was killed {done}: "
            + ", ".join(_display(the_plan.root, rel) for rel in swept.removed[:3])
            + (" ..." if len(swept.removed) > 3 else "")
        )
    if swept.live:
        out.err(
            f"{_n_files(len(swept.live))} of a migrate still running (or on another host) "
            f"left alone: {_display(the_plan.root, swept.live[0])}"
        )


def _write(
    request: _Request, the_plan: Any, pending: Sequence[FileResult], out: _Out
) -> tuple[int | None, Outcome]:
    """Write the run's files, all or none: (an exit code when that failed, what was done)."""
    from migrator.engine.session import write_copy, write_in_place
    from migrator.engine.writes import Outcome, WriteError, probe_writable

    try:
        if request.report_path is not None:
            probe_writable(request.report_path)
        if request.out_dir is not None:
            write_copy(the_plan, request.out_dir, pending)
            return None, Outcome()
        outcome = write_in_place(the_plan.root, pending)
    except WriteError as error:
        where = "--out" if request.out_dir is not None else "in place"
        out.err(f"error: could not write {where}: {error}; nothing was written")
        return EXIT_WRITE, Outcome()
    except OSError as error:
        out.err(f"error: could not write the report: {_os_error(error)}; nothing was written")
        return EXIT_WRITE, Outcome()
    for rel, why in outcome.left.items():
        out.err(f"error: {_display(the_plan.root, rel)}: {why}")
    for rel, notes in outcome.notes.items():
        for note in notes:
            out.err(f"{_display(the_plan.root, rel)}: {note}")
    return None, outcome


def _os_error(error: OSError) -> str:
    where = error.filename if error.filename is not None else ""
    return f"{where}: {error.strerror or type(error).__name__}".lstrip(": ")


def _describe(
    out: _Out, resolved: _Resolved, files: int, cache: CacheRef | None, cache_note: str | None
) -> None:
    settings = resolved.settings
    out.err(f"profile {resolved.profile.name}: {len(settings.rule_codes)} rules, {files} files")
    config = resolved.config.path
    out.err(f"config: {config}" if config is not None else "config: none (no [tool.migrate])")
    if cache_note:
        out.err(f"cache: {cache_note}")


def _show_actions(summary: RunSummary, out: _Out) -> None:
    """The end of the run: what needs a person, grouped by action (`--report x.md` has
    every site with its message)."""
    if not any(result.findings for result in summary.results):
        return  # nothing to group (a clean run need not import the grouping)
    from migrator.output.actions import console_lines, groups

    for line in console_lines(groups(summary.results)):
        out.err(line)


def _target_line(settings: Settings) -> str:
    release = settings.project.target_release
    return f"target: torch-npu {release.version} ({release.reason})"


def _n_files(count: int) -> str:
    return f"{count} file" + ("" if count == 1 else "s")


def _write_report(
    request: _Request, root: Path, profile: Profile, settings: Settings, summary: RunSummary,
    skipped: Sequence[SkippedPath],
) -> None:  # fmt: skip
    if request.report_path is None:
        return
    from migrator.output.report import write_report

    info = _run_info(request, root, profile, settings)
    write_report(request.report_path, info, summary, skipped)


def _run_info(request: _Request, root: Path, profile: Profile, settings: Settings) -> RunInfo:
    from migrator.output.report import RunInfo

    release = settings.project.target_release
    return RunInfo(
        str(root), request.target_name, profile.name, request.mode, settings.rule_codes,
        release.version, release.reason,
    )  # fmt: skip


def _exit_code(request: _Request, summary: RunSummary, crashed: Sequence[str] = ()) -> int:
    if crashed:
        return EXIT_INTERNAL
    if summary.failed:
        return EXIT_ERROR
    if request.mode in ("dry-run", "check") and not request.exit_zero:
        if summary.changed or summary.created:
            return EXIT_PENDING
        if request.fail_on_warning and summary.warnings:
            return EXIT_PENDING
    return EXIT_OK


def _colour(choice: str) -> bool | None:
    """click's `color`: True or False forced, None to colour only on a terminal.
    The flag wins; under `auto` NO_COLOR, then FORCE_COLOR (https://no-color.org)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return None


def ctx_config_file() -> Path | None:
    layered = click.get_current_context().meta.get(_META)
    return layered.config_file if isinstance(layered, _Layered) else None


def _run_stdin(request: _Request, out: _Out) -> int:
    """Code on stdin, migrated code on stdout, everything else on stderr.

    Exit codes: 0 done (the migrated code, or the code unchanged, is on stdout); 1 with
    --check/--dry-run when the code would change; 2 when it cannot be read or parsed, and
    then the input is echoed unchanged so an editor integration never loses text.
    """
    from migrator.engine.files import migrate_text
    from migrator.engine.session import finish

    data = sys.stdin.buffer.read()
    assert request.stdin_name is not None
    name = Path(request.stdin_name)
    full = Path(os.path.abspath(name))
    try:
        config = request.checked_config()
        # Rules match project-relative paths: relative to the configuration's folder.
        root = config.folder.resolve() if config.folder is not None else Path.cwd().resolve()
        try:
            rel = full.resolve().relative_to(root).as_posix()
        except ValueError:
            rel = name.as_posix().lstrip("/")
        resolved = _resolve(request, root, out)
    except _Failure:
        _echo_bytes(data, request)
        raise
    if out.verbose:
        _describe(out, resolved, 1, None, None)
    result = migrate_text(rel, data, resolved.settings)
    result = replace(result, path=rel)
    summary = RunSummary()
    finish(summary, result)
    shown = str(name)
    _show(result, shown, out)
    if request.mode == "dry-run" or request.diff:
        _show_diff(result, shown, out)
    elif request.mode != "check":
        _echo_bytes(result.new_data if result.new_data is not None else data, request)
    _write_report(request, root, resolved.profile, resolved.settings, summary, ())
    if not out.quiet:
        _show_actions(summary, out)
        out.err(_target_line(resolved.settings))
    out.err(summary.line(pending=request.mode != "in-place"))
    if result.internal:
        return EXIT_INTERNAL
    return _exit_code(request, summary)


def _echo_bytes(data: bytes, request: _Request) -> None:
    """The code itself on stdout, as bytes: its encoding and line endings are kept."""
    if request.mode == "in-place":
        stream: BinaryIO = sys.stdout.buffer
        stream.write(data)
        stream.flush()


def _progress(stack: ExitStack, out: _Out, the_plan: Any) -> Any:
    from migrator.engine.session import count, steps

    if out.quiet or not sys.stderr.isatty():
        return lambda: None
    total = count(the_plan) + len(steps(the_plan))
    if total < PROGRESS_THRESHOLD:
        return lambda: None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = stack.enter_context(
        Progress(
            # migrating ━━━━━━ 12/40 0:00:03 eta 0:00:07 (rich estimates from recent speed)
            TextColumn("migrating"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=Console(stderr=True, no_color=out.color is False),
            transient=True,
        )
    )
    task = progress.add_task("files", total=total)
    out.console = progress.console
    stack.callback(lambda: setattr(out, "console", None))
    return lambda: progress.advance(task)


def _show_diff(result: FileResult, label: str, out: _Out) -> None:
    if result.status is not Status.FAILED and result.new_data is not None:
        from migrator.output.diff import colour, unified

        out.out(colour(unified(result, label)))


def _show(result: FileResult, shown: str, out: _Out) -> None:
    """One file's lines on stderr, for the tree and the stdin paths alike: its error, or
    its edits and warnings (and with --verbose its suppressions and notes)."""
    if result.status is Status.FAILED:
        out.err(f"error: {shown}: {result.error}")
        return
    if out.quiet:
        return
    for change in result.changes:
        out.err(_change_line(change, shown))
    for warning in result.warnings:
        out.err(_change_line(warning, shown))
    if result.status is Status.CREATED and not result.changes:
        out.err(f"{shown}: {'would be created' if out.pending else CREATED}")
    _warn_unknown_codes(result, shown, out)
    for note in result.notes:
        if note.startswith(WARNING_NOTE):
            out.err(f"{shown}: {note}")
    if out.verbose:
        _show_verbose(result, shown, out)


CREATED = "created"


def _pending_line(line: str) -> str:
    """A held line of a refused run, as pending: a new file "would be created"."""
    if line.endswith(f": {CREATED}"):
        return line.removesuffix(CREATED) + "would be created"
    return line


def _warn_unknown_codes(result: FileResult, shown: str, out: _Out) -> None:
    """A `# migrate: ignore[...]` naming a code no rule has (a typo: `NPU0l2`) suppresses
    nothing: said by default, not only with --verbose (a rule's code is never unknown to
    the run that suppressed it, so only unused suppressions need checking)."""
    from migrator.engine.selection import closest, unknown

    if not out.known:
        return
    for item in result.unused_suppressions:
        if item.code == "*" or " " in item.code:
            continue
        cell = f":cell {item.cell}" if item.cell is not None else ""
        for code in unknown(item.code.split(","), out.known):
            out.err(
                f"{shown}{cell}:{item.line}: warning: migrate: ignore names unknown code "
                f"{code!r}{closest(code, out.known)}; it suppresses nothing"
            )


def _show_verbose(result: FileResult, shown: str, out: _Out) -> None:
    for item in result.suppressed:
        out.err(f"{_change_line(item, shown)} by a migrate: ignore comment")
    for item in result.unused_suppressions:
        cell = f":cell {item.cell}" if item.cell is not None else ""
        out.err(f"{shown}{cell}:{item.line}: unused suppression ({item.code})")
    for note in result.notes:
        if not note.startswith(WARNING_NOTE):
            out.err(f"{shown}: {note}")


@main.command(
    name="run",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option(
    "--emulate-npu",
    is_flag=True,
    required=True,
    help="Run on the CPU-backed NPU emulator (required: this command runs your code).",
)
@click.option("--devices", type=click.IntRange(min=1), default=None, help="Emulated NPUs.")
@click.option(
    "--report", "report_dir", type=click.Path(path_type=Path), metavar="DIR",
    help="Each process writes a JSON record of devices, dtypes and autocast regions to DIR.",
)  # fmt: skip
@click.argument("program", nargs=-1, required=True, type=click.UNPROCESSED)
def run_command(
    emulate_npu: bool, devices: int | None, report_dir: Path | None, program: tuple[str, ...]
) -> None:
    """Run SCRIPT [ARGS...] (or -m MODULE [ARGS...]) on an emulated Ascend host.

    Unlike migrating, this runs your code, on purpose: `migrate run --emulate-npu --
    train.py --steps 5`. Child processes (accelerate launch, torchrun) are emulated too.
    """
    import subprocess

    command = [sys.executable, "-m", "npu_emulator"]
    if devices is not None:
        command += ["--devices", str(devices)]
    if report_dir is not None:
        command += ["--report", str(report_dir)]
    args = list(program[1:] if program[:1] == ("--",) else program)
    sys.exit(subprocess.call([*command, *args]))


if __name__ == "__main__":
    main()
