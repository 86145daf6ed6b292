"""Files the dit4dit profile adds to a checkout: created when absent, never overwritten.

A generated file is created when its path is free. When the path holds exactly the bytes
the profile would write, nothing happens (so a second run changes nothing). When it holds
anything else, the user has edited it (or it is theirs): it is kept and the run warns.
Steps only return results; the engine shows, writes or copies them.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from migrator.contract.profile import StepInput
from migrator.core.model import FileResult, Finding, Status

TRAINER = "DiT4DiT/training/train.py"


@dataclass(frozen=True)
class Generated:
    """One file to generate: where, its bytes, and the line shown when it is created."""

    path: str
    data: bytes
    code: str
    note: str
    review: bool = False


def template(name: str) -> bytes:
    """A file shipped in `target_dit4dit/templates/`."""
    # Imported here: importlib.resources (tempfile, shutil) would be a cost of every run's
    # `--profile auto`, which imports this package to read its profile.
    from importlib import resources

    return (resources.files("target_dit4dit") / "templates" / name).read_bytes()


def emit(root: Path, item: Generated) -> FileResult:
    full = root / item.path
    if not os.path.lexists(full):
        change = Finding.change(item.path, 1, 1, item.code, f"created: {item.note}", item.review)
        return FileResult(item.path, Status.CREATED, new_data=item.data, findings=(change,))
    if full.is_file() and not full.is_symlink():
        try:
            if full.read_bytes() == item.data:
                return FileResult(item.path, Status.UNCHANGED)
        except OSError:
            pass
    return kept(item.path, item.code, "exists and differs from the file npu-migrator generates")


def kept(path: str, code: str, why: str) -> FileResult:
    """A path left as it is, with a warning that says why and how to get the generated file."""
    warning = Finding.warning(
        path, 1, 1, code, f"{why}; kept as it is", "delete or rename it and run again to regenerate"
    )
    return FileResult(path, Status.UNCHANGED, findings=(warning,))


def not_generated(path: str, code: str, why: str, what_to_do: str) -> FileResult:
    warning = Finding.warning(path, 1, 1, code, f"not generated: {why}", what_to_do)
    return FileResult(path, Status.UNCHANGED, findings=(warning,))


def is_dit4dit(root: Path) -> bool:
    """Generated files only make sense where the DiT4DiT trainer is (a forced profile elsewhere
    generates nothing)."""
    return (root / TRAINER).is_file()


Builder = Callable[[StepInput], Sequence[Generated | FileResult]]


class GeneratedFiles:
    """A profile step that generates the files its builder describes.

    `doc` is what `--explain CODE` prints: the builder module's docstring, which says why
    the files are needed.
    """

    def __init__(self, code: str, name: str, summary: str, build: Builder, doc: str) -> None:
        self.code = code
        self.name = name
        self.summary = summary
        self.build = build
        self.doc = doc

    def explain(self) -> str:
        return inspect.cleandoc(self.doc)

    def __call__(self, given: StepInput) -> list[FileResult]:
        if not is_dit4dit(given.root):
            return []
        return [
            emit(given.root, item) if isinstance(item, Generated) else item
            for item in self.build(given)
        ]
