"""The `migrate doctor` subcommand: flags in, the report out, exit 0 / 1 / 2."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from migrator.doctor.host import Host


@click.command(name="doctor", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option(
    "--python", "python", metavar="INTERPRETER",
    help="The training environment's interpreter to probe (default: python on PATH).",
)  # fmt: skip
@click.option(
    "--model",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="DiT4DiT: the base model folder to check.",
)
@click.option(
    "--data",
    type=click.Path(path_type=Path),
    metavar="DIR",
    help="DiT4DiT: the LeRobot dataset folder to check.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the report as JSON (schema in the README)."
)
def doctor_command(
    path: Path | None, python: str | None, model: Path | None, data: Path | None, as_json: bool
) -> None:
    """Check this host and the project at PATH (default: .) before training on Ascend NPUs.

    Only reads: installs nothing, changes nothing, never uses the network, never imports
    the project. Exit 0: nothing blocks training; 1: something does; 2: usage error.
    """
    project = path if path is not None else Path(".")
    if not project.exists():
        raise click.UsageError(f"{project}: no such file or folder")
    for flag, folder in (("--model", model), ("--data", data)):
        if folder is not None and not folder.is_dir():
            raise click.UsageError(f"{flag} {folder}: not a folder")
    # The checks import the engine (LibCST, the rules): only when the doctor runs, so that
    # `migrate --help` stays cheap.
    from migrator.doctor.checks import run_checks
    from migrator.doctor.context import Options

    host = Host(dict(os.environ), python=python)
    if python is not None and host.interpreter() is None:
        raise click.UsageError(f"--python {python}: not found or not executable")
    report = run_checks(host, Options(project, model, data))
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2))
    else:
        click.echo(report.text(), nl=False)
    sys.exit(report.exit_code)
