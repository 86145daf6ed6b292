"""``python -m npu_emulator [options] SCRIPT [ARGS...]``: run a script on an emulated host.

The script runs as ``__main__`` with ``sys.argv = [SCRIPT, *ARGS]`` and its own folder
first on ``sys.path``, as ``python SCRIPT`` would run it; ``-m MODULE`` runs a module
the way ``python -m`` does (``-m accelerate.commands.launch ...`` for accelerate). Child
processes inherit the emulation. The exit status is the program's.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

from npu_emulator import releases, settings
from npu_emulator.environment import emulation_env
from npu_emulator.install import install

_TAKES_VALUE = ("--devices", "--report", "--torch-npu", "-m")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m npu_emulator",
        usage="%(prog)s [--devices N] [--report DIR] [--torch-npu VERSION] "
        "(SCRIPT | -m MODULE) [ARGS...]",
        description="Run a PyTorch program on a CPU-backed emulated Ascend NPU host.",
    )
    parser.add_argument("--devices", type=int, default=None, help="number of NPUs (default 1)")
    parser.add_argument(
        "--report", metavar="DIR", default=None, help="write a JSON report per process in DIR"
    )
    parser.add_argument(
        "--torch-npu",
        metavar="VERSION",
        default=None,
        help=f"the torch-npu release of the emulated host (default {releases.DEFAULT_RELEASE};"
        f" known: {', '.join(releases.known())})",
    )
    parser.add_argument("-m", dest="module", default=None, help="run a module as a script")
    return parser


def _split(argv: list[str]) -> int:
    """Where the emulator's own options end: at SCRIPT, or right after ``-m MODULE``."""
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "-m":
            return i + 2
        if arg == "--":
            return i
        if arg in _TAKES_VALUE:
            i += 2
        elif arg.startswith("-"):
            i += 1
        else:
            return i
    return len(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    split = _split(args)
    options = _parser().parse_args(args[:split])
    rest = args[split:]
    options.args = rest[1:] if rest[:1] == ["--"] else rest
    if options.devices is not None and options.devices < 1:
        print(f"npu emulator: --devices must be >= 1, got {options.devices}", file=sys.stderr)
        return 2
    if options.torch_npu is not None:
        try:
            releases.check(options.torch_npu)
        except ValueError as error:
            print(f"npu emulator: {error}", file=sys.stderr)
            return 2
    if options.module is None and not options.args:
        print("npu emulator: give a SCRIPT to run (or -m MODULE)", file=sys.stderr)
        return 2
    script = None
    if options.module is None:
        script = Path(options.args[0])
        if not script.is_file():
            print(f"npu emulator: no such script: {script}", file=sys.stderr)
            return 2
    # The project's own files (drift.py): the working directory and the script's folder.
    roots = [os.getcwd(), *([str(script.resolve().parent)] if script is not None else [])]
    os.environ.setdefault(settings.ENV_PROJECT, os.pathsep.join(roots))
    os.environ.update(
        emulation_env(
            devices=options.devices, report_dir=options.report, torch_npu=options.torch_npu
        )
    )
    install()
    if script is not None:
        sys.argv = [str(script), *options.args[1:]]
        sys.path[0] = str(script.resolve().parent)
        runpy.run_path(str(script), run_name="__main__")
    else:
        sys.argv = [options.module, *options.args]
        sys.path[0] = os.getcwd()
        runpy.run_module(options.module, run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
