"""Device values in launch scripts: `--device cuda`, `--eval_device=cuda:0`, `DEVICE=cuda`."""

from __future__ import annotations

import re

from migrator.analysis.cst_helpers import retarget_device
from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Finding, Safety, TextEdit
from migrator.formats.shell import SCRIPT_PATTERNS
from migrator.formats.sources import split_lines

# `--device cuda`, `--device=cuda:0`, `--eval-device 'cuda'`, `--map_location cuda`.
_OPTION = re.compile(
    r"(?<![\w-])--(?P<key>device|[\w-]*[_-]device|map[_-]location)(?:=|[ \t]+)"
    r"(?P<quote>[\"']?)(?P<value>cuda(?::\d+)?)(?P=quote)(?=[\s;|&)]|$)"
)
# `DEVICE=cuda`, `export EVAL_DEVICE="cuda:0"` (not CUDA_VISIBLE_DEVICES: a list of ids).
_ASSIGNMENT = re.compile(
    r"(?<![\w$-])(?P<key>DEVICE|[A-Z_]*_DEVICE|device|\w+_device)="
    r"(?P<quote>[\"']?)(?P<value>cuda(?::\d+)?)(?P=quote)(?=[\s;|&)]|$)"
)


class ShellDeviceArgument(TextRule):
    """Point device values in shell scripts at the NPU: `--device cuda` -> `--device npu`.

    What it does: in shell and Slurm scripts, the value of an option that names a device
    (`--device`, `--*-device` / `--*_device`, `--map_location`), written `--device cuda`,
    `--device=cuda:0` or quoted, and a variable so named (`DEVICE=cuda`, `export
    EVAL_DEVICE="cuda:1"`), becomes `npu` / `npu:N`. Comment lines, other options
    (`--name cuda`) and `CUDA_VISIBLE_DEVICES` are left alone.

    Why: these values reach the same argparse / click / typer options and environment
    look-ups that NPU010 migrates in Python (`add_argument("--device", default="cuda",
    choices=["cpu", "cuda"])` -> "npu"); a launch script that still passes "cuda" then
    fails the new `choices`, or feeds a comparison that now expects "npu".

    Example: `python train.py --device cuda:0` -> `python train.py --device npu:0`.

    Safety: needs review: a script may also launch tools that run on a CUDA host.
    """

    code = "NPU121"
    action = "host-setup"
    name = "shell-device-argument"
    summary = "Device values in launch scripts (--device cuda, DEVICE=cuda) point at the NPU."
    safety = Safety.REVIEW
    trigger = Trigger(tokens=("cuda",), unit=Unit.FILE, files=SCRIPT_PATTERNS)
    examples = (
        Example(
            "python train.py --device cuda:0 --eval-device='cuda' --name cuda\n",
            "python train.py --device npu:0 --eval-device='npu' --name cuda\n",
            path="run.sh",
        ),
        Example('export DEVICE="cuda"\n', 'export DEVICE="npu"\n', path="run.sh"),
        Example("# python train.py --device cuda\nexport CUDA_VISIBLE_DEVICES=0\n", path="run.sh"),
    )

    def check(self, text: str) -> list[Finding]:
        lines = split_lines(text)
        found: list[Finding] = []
        offset = 0
        source, device = self.target.source_device_type, self.target.device_type
        for number, line in enumerate(lines):
            start, offset = offset, offset + len(line)
            if line.lstrip().startswith("#") or source not in line:
                continue
            edits = [m for pattern in (_OPTION, _ASSIGNMENT) for m in pattern.finditer(line)]
            for match in sorted(edits, key=lambda m: m.start("value")):
                value = match.group("value")
                new = retarget_device(value, source, device)
                if new is None:
                    continue
                at = match.start("value")
                message = f"{match.group('key')} {value!r} -> {new!r}"
                edit = TextEdit(start + at, start + match.end("value"), new)
                found.append(self.change(number + 1, at + 1, message, edit))
        return found
