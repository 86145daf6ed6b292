"""`migrate smoke PATH`: does a migrated DiT4DiT checkout train? (It runs the checkout.)"""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command(name="smoke")
@click.argument("path", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--zero",
    type=click.Choice(["2", "3"]),
    default="2",
    show_default=True,
    help="DeepSpeed ZeRO stage.",
)
@click.option(
    "--processes",
    "-n",
    type=click.IntRange(1, 8),
    default=1,
    show_default=True,
    help="Training processes (ranks).",
)
@click.option(
    "--precision",
    type=click.Choice(["bf16", "fp32"]),
    default="bf16",
    show_default=True,
    help="bf16 (what real training uses, and what proves the port) or fp32.",
)
@click.option(
    "--steps",
    type=click.IntRange(2, 100),
    default=2,
    show_default=True,
    help="Optimizer steps (an eval and a checkpoint happen on the way).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=10),
    default=1800,
    show_default=True,
    help="Seconds before the run is stopped and judged failed.",
)
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the generated pipeline, data, configs and log here.",
)
@click.option(
    "--no-emulate",
    is_flag=True,
    help="Without torch_npu, run on the plain CPU instead of the NPU emulator.",
)
def smoke_command(
    path: Path, zero: str, processes: int, precision: str, steps: int, timeout: float,
    workdir: Path | None, no_emulate: bool,
) -> None:  # fmt: skip
    """Train the DiT4DiT checkout at PATH for a few steps on tiny generated inputs.

    It writes a tiny random Cosmos-Predict2.5 pipeline and a tiny RoboTwin dataset, then
    runs the checkout's own DiT4DiT/training/train.py through accelerate + DeepSpeed, with
    one eval and a checkpoint: on the NPU when torch_npu is installed, else on the
    CPU-backed NPU emulator. Needs the `smoke` extra. Exit 0 passed, 1 failed, 2 usage.
    """
    import tempfile

    from target_dit4dit.smoke.runner import run_smoke

    with tempfile.TemporaryDirectory(prefix="dit4dit-smoke-") as scratch:
        folder = workdir if workdir is not None else Path(scratch)
        click.echo(
            f"smoke: {path} ZeRO-{zero}, {processes} process(es), {precision}, {steps} steps "
            f"(this runs the checkout's training code)",
            err=True,
        )
        try:
            result = run_smoke(
                path, zero=int(zero), num_processes=processes, emulate=not no_emulate,
                workdir=folder, timeout=timeout, precision=precision,  # type: ignore[arg-type]
                max_train_steps=steps,
            )  # fmt: skip
        except (FileNotFoundError, ImportError) as error:
            click.echo(f"error: {error}", err=True)
            sys.exit(2)
        # The trainer logs through rich at 1000 columns: drop the padding for the terminal.
        click.echo("\n".join(" ".join(line.split()) for line in result.log_tail.splitlines()))
        for check in result.checks:
            mark = "ok  " if check.passed else "FAIL"
            click.echo(f"{mark} {check.name}: {check.detail}")
        verdict = "PASSED" if result.passed else "FAILED"
        click.echo(f"smoke {verdict} on {result.device} in {result.seconds:.1f} s")
        sys.exit(0 if result.passed else 1)
