"""The `migrate` command's entry point.

It makes class creation faster for the command's own process (`fast_dataclasses`) before
the command's modules, and LibCST, create their classes; then it runs the command.
"""

from __future__ import annotations


def main() -> object:
    from migrator import fast_dataclasses

    fast_dataclasses.install()

    from migrator.cli import main as command

    return command()
