"""Device values in launch scripts: `--device cuda`, `--eval_device=cuda:0`, `DEVICE=cuda`."""

from __future__ import annotations

import re

from migrator.analysis.cst_helpers import retarget_device
from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Finding, Safety, TextEdit
from migrator.formats.shell import SCRIPT_PATTERNS, line_starts, parse, position

# `--device cuda`, `--device=cuda:0`, `--eval-device 'cuda'`, `--map_location cuda`.
_OPTION = re.compile(
    r"(?<![\w-])--(?P<key>device|[\w-]*[_-]device|map[_-]location)(?:=|[ \t]+)"
    r"(?P<quote>[\"']?)(?P<value>cuda(?::\d+)?)(?P=quote)(?=[\s;|&)]|$)"
)
# An option that names a device, alone in its word (its value is the next word).
_FLAG = re.compile(r"^--(?:device|[\w-]*[_-]device|map[_-]location)$")
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
    EVAL_DEVICE="cuda:1"`), becomes `npu` / `npu:N`, in the words of each command as the
    shell lexer reads them (an option continued onto the next line by a backslash
    included). Comments, heredoc bodies (text the script writes out), other options
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
        source, device = self.target.source_device_type, self.target.device_type
        if source not in text:
            return []
        script = parse(text)
        starts = line_starts(text)
        # By the offset of the value: a word holding `$(...)` and the nested command's
        # own words see the same text.
        matches: dict[int, tuple[int, re.Match[str]]] = {}
        for command in script.commands:
            words = command.words
            for index, word in enumerate(words):
                flag = _FLAG.match(word.text) is not None
                if source not in word.text and not flag:
                    continue
                for pattern in (_OPTION, _ASSIGNMENT):
                    for match in pattern.finditer(word.text):
                        matches.setdefault(word.start + match.start("value"), (word.start, match))
                if flag and index + 1 < len(words):
                    # `--device cuda`: the option and its value are two words.
                    following = words[index + 1]
                    pair = _OPTION.fullmatch(f"{word.text} {following.text}")
                    if pair is not None:
                        base = following.start - len(word.text) - 1
                        matches.setdefault(base + pair.start("value"), (base, pair))
        found: list[Finding] = []
        for start in sorted(matches):
            base, match = matches[start]
            value = match.group("value")
            new = retarget_device(value, source, device)
            if new is None:
                continue
            line, column = position(starts, start)
            message = f"{match.group('key')} {value!r} -> {new!r}"
            edit = TextEdit(start, base + match.end("value"), new)
            found.append(self.change(line, column, message, edit))
        return found
