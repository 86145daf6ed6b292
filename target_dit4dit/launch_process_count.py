"""`accelerate launch --num_processes N` in DiT4DiT's launch scripts."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from dataclasses import dataclass

from migrator.expected import ExpectsShape, not_found
from migrator.model import Safety
from migrator.rule import Example, TextRule
from migrator.sources import newline_of, split_lines

TRAINING_SCRIPTS = "examples/*/train_files/*.sh"
VARIABLE = "NUM_PROCESSES"
_LAUNCH = re.compile(r"\baccelerate\s+launch\b")
_AT_START = re.compile(r"^(?P<indent>[ \t]*)(?:[A-Za-z_]\w*=\S*[ \t]+)*accelerate\s+launch\b")
_FLAG = re.compile(r"--num_processes(?P<sep>=|[ \t]+)(?P<value>[^\s\\]+)")
_MACHINES = re.compile(r"--num_machines(?:=|[ \t]+)(?P<value>[^\s\\]+)")
_CLUSTER = re.compile(r"^\s*#SBATCH\b|\bsrun\b|\$\{?SLURM_|\bmpirun\b", re.MULTILINE)
_ASSIGN = re.compile(r"^[ \t]*(?:export[ \t]+)?(?P<name>[A-Za-z_]\w*)=(?P<value>[^#\r\n]*)")
_NAME = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class _Command:
    """One shell command, physical lines first..last (0-based), joined at backslashes."""

    first: int
    last: int
    text: str


def _commands(lines: list[str]) -> Iterator[_Command]:
    index = 0
    while index < len(lines):
        first = index
        parts = []
        while True:
            body = lines[index].rstrip("\r\n")
            continued = body.endswith("\\") and index + 1 < len(lines)
            parts.append(body[:-1] if continued else body)
            if not continued:
                break
            index += 1
        text = " ".join(parts)
        if not text.lstrip().startswith("#"):
            yield _Command(first, index, text)
        index += 1


class LaunchProcessCount(ExpectsShape, TextRule):
    """Launch one process per visible NPU (at most the script's count) on a single node.

    What it does: in a shell script, a single-node `accelerate launch ... --num_processes N`
    (a literal N) gets a comment and two lines before it, and a variable in place of N:

        # one process per visible NPU, at most the 8 this script was written for; ...
        NUM_PROCESSES=$(python -c "import torch, torch_npu; print(min(8, torch....))")
        if [ "${NUM_PROCESSES}" -lt 8 ]; then echo "..." >&2; fi
        accelerate launch ... --num_processes "${NUM_PROCESSES:?cannot count the visible NPUs}"

    so the count is never above the NPUs the job can see (`ASCEND_RT_VISIBLE_DEVICES` picks
    them) and never above what the script asked for; the `if` line says on stderr when fewer
    processes run than the script asked for.

    Why: DiT4DiT's scripts ask for 64, 16 and 8 processes (their authors' GPU clusters), and
    `accelerate launch` on one node starts exactly that many. With more processes than NPUs,
    several ranks land on one device and HCCL fails to set up its communicator (the blog's
    16 processes on 8 cards). Counting the devices at launch fits a node of any size; capping
    at N keeps the script's recipe wherever it fits.

    Multi-node launches (`--num_machines` other than 1, `--machine_rank`, SLURM or mpirun
    scripts) are not changed: there `--num_processes` counts all nodes' processes, and the
    per-node count (upstream: `GPUS_PER_NODE=8`) must match the NPUs of one node. The rule
    warns with the literal counts it traces the value back to. A process count given by a
    variable on one node, a launch this rule cannot place lines before (inside `bash -c
    '...'`), and a launch without `--num_processes` (the accelerate config's `num_processes`
    decides) are reported too. A training script under `examples/*/train_files/` without an
    `accelerate launch` is reported as not found.

    Safety: needs review: with fewer processes the global batch size (per-device batch x
    processes x gradient accumulation) shrinks; raise `gradient_accumulation_steps` or the
    per-device batch to keep the recipe.

    Caveats: counting needs `python` on PATH with torch and torch_npu (the environment that
    runs `accelerate`). `torchrun --nproc_per_node` is not handled. A script that already
    uses a variable named `NUM_PROCESSES` is reported, not edited.
    """

    code = "DIT012"
    name = "launch-process-count"
    summary = "accelerate launch --num_processes N: at most one process per visible NPU (one node)."
    safety = Safety.REVIEW
    patterns = ("*.sh",)
    tokens = ("accelerate",)
    # Runs after the rules that keep line counts, so their reports name the file's own lines.
    priority = 800
    examples = (
        Example(
            "accelerate launch \\\n  --num_processes 8 \\\n  train.py\n",
            "# one process per visible NPU, at most the 8 this script was written for; "
            "choose the NPUs with ASCEND_RT_VISIBLE_DEVICES\n"
            'NUM_PROCESSES=$(python -c "import torch, torch_npu; '
            'print(min(8, torch.npu.device_count()))")\n'
            'if [ "${NUM_PROCESSES}" -lt 8 ]; then echo "only ${NUM_PROCESSES} NPUs visible: '
            'launching ${NUM_PROCESSES} processes instead of 8 (a smaller global batch)" >&2; fi\n'
            "accelerate launch \\\n"
            '  --num_processes "${NUM_PROCESSES:?cannot count the visible NPUs}" \\\n'
            "  train.py\n",
            path="scripts/train.sh",
        ),
        Example(
            'echo "accelerate launch needs a config"\npython eval.py --num_processes 8\n',
            None,
            path="scripts/eval.sh",
        ),
    )

    def apply(self, text: str) -> str:
        lines = split_lines(text)
        commands = [c for c in _commands(lines) if _LAUNCH.search(c.text)]
        if not commands:
            if fnmatch.fnmatchcase(self.ctx.path, TRAINING_SCRIPTS):
                self.warn_at(
                    1,
                    1,
                    not_found("an `accelerate launch` command", self.ctx.path),
                    "make sure the training launch starts at most one process per visible "
                    f"{self._device()}",
                )
            return text
        cluster = _CLUSTER.search(text) is not None
        inserts: dict[int, list[str]] = {}
        for command in commands:
            inserted = self._command(lines, command, cluster, text)
            if inserted:
                inserts[command.first] = inserted
        if not inserts:
            return text
        out: list[str] = []
        for index, line in enumerate(lines):
            out.extend(inserts.get(index, ()))
            out.append(line)
        return "".join(out)

    def _device(self) -> str:
        return self.target.name.upper()

    def _command(self, lines: list[str], command: _Command, cluster: bool, text: str) -> list[str]:
        """Lines to insert before the command (its own line edited in `lines`), or none."""
        flag = self._flag(lines, command)
        machines = _MACHINES.search(command.text)
        multi = (
            cluster
            or (machines is not None and machines.group("value") != "1")
            or "--machine_rank" in command.text
        )
        if flag is None:
            if (multi or _AT_START.match(command.text)) and not self._silenced(command):
                where = _LAUNCH.search(lines[command.first])
                self.warn_at(
                    command.first + 1,
                    where.start() + 1 if where else 1,
                    "accelerate launch without --num_processes: the accelerate config's "
                    "num_processes decides how many processes start",
                    f"make sure it is at most the {self._device()}s visible on each node",
                )
            return []
        row, match = flag
        value = match.group("value")
        col = match.start("value") + 1
        if self._silenced(command):
            return []
        if multi:
            self.warn_at(
                row + 1,
                col,
                f"multi-node launch: --num_processes {value} counts the processes of all "
                f"nodes{self._traced(lines, value, command.first)}; not changed",
                f"each node must run one process per visible {self._device()}: set the "
                "per-node count to the devices of one node and check the job's device request",
            )
            return []
        if not value.isdigit():
            if not value.startswith(f'"${{{VARIABLE}:?'):
                self.warn_at(
                    row + 1,
                    col,
                    f"--num_processes {value}{self._traced(lines, value, command.first)} is "
                    f"not checked against the visible {self._device()}s",
                    f"make sure it is at most the number of visible {self._device()}s",
                )
            return []
        start = _AT_START.match(command.text)
        if start is None:
            self.warn_at(
                row + 1,
                col,
                f"--num_processes {value}: the launch is not a command of its own (quoted or "
                "nested), so no device count can be placed before it; not changed",
                f"use at most one process per visible {self._device()}",
            )
            return []
        if re.search(rf"\b{VARIABLE}\b", text):
            self.warn_at(
                row + 1,
                col,
                f"--num_processes {value}: the script already uses {VARIABLE}; not changed",
                f"use at most one process per visible {self._device()}",
            )
            return []
        message = (
            f"--num_processes {value} -> one process per visible {self._device()}, at most "
            f"{value} (counted at launch): more processes than devices breaks the "
            f"{self.target.dist_backend.upper()} set-up; with fewer, the global batch size "
            "shrinks"
        )
        if not self.change_at(row + 1, col, message):
            return []
        device = self._device()
        replacement = f'"${{{VARIABLE}:?cannot count the visible {device}s}}"'
        line = lines[row]
        lines[row] = line[: match.start("value")] + replacement + line[match.end("value") :]
        return self._counting_lines(start.group("indent"), value, newline_of(text))

    def _counting_lines(self, indent: str, count: str, newline: str) -> list[str]:
        device = self._device()
        visible = self.target.env_mapping("CUDA_VISIBLE_DEVICES")
        choose = (
            f"; choose the {device}s with {visible.target}"
            if visible is not None and visible.target
            else ""
        )
        probe = (
            f"import torch, {self.target.runtime_module}; "
            f"print(min({count}, torch.{self.target.device_type}.device_count()))"
        )
        notice = (
            f'echo "only ${{{VARIABLE}}} {device}s visible: launching ${{{VARIABLE}}} processes '
            f'instead of {count} (a smaller global batch)" >&2'
        )
        return [
            f"{indent}# one process per visible {device}, at most the {count} this script was "
            f"written for{choose}{newline}",
            f'{indent}{VARIABLE}=$(python -c "{probe}"){newline}',
            f'{indent}if [ "${{{VARIABLE}}}" -lt {count} ]; then {notice}; fi{newline}',
        ]

    def _silenced(self, command: _Command) -> bool:
        """A `# migrate: ignore` on the command's first or last line covers all of it."""
        return self.ctx.is_suppressed(self.code, command.first + 1, command.last + 1)

    @staticmethod
    def _flag(lines: list[str], command: _Command) -> tuple[int, re.Match[str]] | None:
        for row in range(command.first, command.last + 1):
            match = _FLAG.search(lines[row])
            if match is not None:
                return row, match
        return None

    @staticmethod
    def _traced(lines: list[str], value: str, before: int) -> str:
        """` (from GPUS_PER_NODE=8, line 36)`: literal counts the value's variables come from."""
        values: dict[str, tuple[int, str]] = {}
        for row in range(before):
            match = _ASSIGN.match(lines[row])
            if match is not None:
                values[match.group("name")] = (row + 1, match.group("value").strip())
        found: list[str] = []
        pending = _NAME.findall(value)
        seen: set[str] = set()
        while pending:
            name = pending.pop(0)
            if name in seen or name not in values:
                continue
            seen.add(name)
            row, assigned = values[name]
            if assigned.isdigit():
                found.append(f"{name}={assigned}, line {row}")
            pending.extend(_NAME.findall(assigned))
        return f" (from {'; '.join(found)})" if found else ""
