"""`nvidia-smi` run from shell scripts."""

from __future__ import annotations

import os

from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill, reported
from migrator.core.model import Finding, FixAvailability
from migrator.formats.shell import SCRIPT_PATTERNS, line_starts, parse, position, unquote

_SMI = "nvidia-smi"
_LOGGERS = frozenset({"echo", "printf"})


class NvidiaSmi(TextRule):
    """Report `nvidia-smi` in shell scripts.

    What it reports: each unquoted `nvidia-smi` word in a command, whether it is the
    command (`nvidia-smi --query-gpu=memory.used --format=csv`), runs inside `$(...)`
    (`N=$(nvidia-smi -L | wc -l)`) or is handed to another command (`watch -n 1
    nvidia-smi`, `timeout 10 nvidia-smi`). Arguments of `echo`/`printf`, quoted text,
    comments and heredocs are left alone. Nothing is rewritten.

    Why: an Ascend host has no NVIDIA driver and no `nvidia-smi`; the command fails, and a
    script that counts GPUs with it (`nvidia-smi -L | wc -l`) gets 0. The NPU's tool is
    `npu-smi info`, whose output format differs, so anything parsing the output changes
    too; in Python, `torch.npu.device_count()` counts devices.

    Example: `GPUS=$(nvidia-smi -L | wc -l)` is reported.

    Safety: reports only: `npu-smi` takes other options and prints another format.

    Caveats: `nvidia-smi` inside a string run later (`bash -c "nvidia-smi"`) is not
    reported; Python code that runs it is reported by NPU061 (pynvml).
    """

    code = "NPU103"
    action = "host-setup"
    fix_availability = FixAvailability.NEVER
    name = "nvidia-smi"
    summary = "Report nvidia-smi calls in shell scripts (the NPU's tool is npu-smi)."
    trigger = Trigger(tokens=(_SMI,), unit=Unit.FILE, files=SCRIPT_PATTERNS)
    examples = (
        reported("GPUS=$(nvidia-smi -L | wc -l)\n", "run.sh"),
        Example('echo "check nvidia-smi for memory"\n', path="run.sh"),
    )

    def check(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        script = parse(text)
        starts = line_starts(text)
        for command in script.commands:
            name = command.name()
            if name is None or name in _LOGGERS:
                continue
            for word in command.words:
                if os.path.basename(unquote(word.text)) != _SMI or script.in_literal(word.start):
                    continue
                line, col = position(starts, word.start)
                warning = self.warning(
                    line,
                    col,
                    fill("nvidia-smi queries NVIDIA GPUs; {DEVICE} hosts have none", self.target),
                    fill(
                        "use {device_query}; its options and output format differ, so parsing "
                        "changes too",
                        self.target,
                    ),
                )
                found.append(warning)
        return found
