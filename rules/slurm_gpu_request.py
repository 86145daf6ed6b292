"""GPU requests in Slurm batch directives and srun/sbatch/salloc commands."""

from __future__ import annotations

import os
import re

from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill, reported
from migrator.core.model import Finding, FixAvailability
from migrator.formats.shell import SCRIPT_PATTERNS, line_starts, parse, position, unquote

_DIRECTIVE = re.compile(r"#SBATCH\s+(?P<options>.*)")
_LAUNCHERS = frozenset({"srun", "sbatch", "salloc"})


def _words(options: str) -> list[str]:
    """A directive's options as sbatch reads them: shell words, quotes removed, up to a
    comment (`#SBATCH --gres="gpu:8"  # eight` is `--gres=gpu:8`)."""
    return [unquote(word.text) for command in parse(options).commands for word in command.words]


class SlurmGpuRequest(TextRule):
    """Report Slurm GPU requests: `#SBATCH --gres=gpu:N`, `--gpus`, `--gpus-per-node`,
    `--gpus-per-task` and the other per-GPU options, in batch directives and on
    `srun`/`sbatch`/`salloc` command lines.

    What it reports: one warning per `#SBATCH` line of the directive block (the comment
    lines Slurm reads before the first command) that requests GPUs, and one per
    `srun`/`sbatch`/`salloc` command that does. The options it knows: `--gres` whose list
    names the `gpu` resource (`--gres=gpu:8`, `--gres=gpu:a100:4,nvme:1`), `--gpus` / `-G`,
    `--gpus-per-node`, `--gpus-per-task`, `--gpus-per-socket`, `--cpus-per-gpu`,
    `--mem-per-gpu`, `--ntasks-per-gpu`, `--gpu-bind`, `--gpu-freq`. Nothing is rewritten.

    Why: on an Ascend cluster the NPUs are not the `gpu` generic resource; how they are
    requested (a GRES named `npu`, another name, or whole nodes) is the site's Slurm
    configuration, so a job asking for `gpu` is rejected or lands on nodes without NPUs.
    A tool cannot know the site's resource name, so it reports and does not guess.

    Example: `#SBATCH --gres=gpu:8` is reported at its line.

    Safety: reports only.

    Caveats: `#SBATCH` lines after the first command are not directives (Slurm ignores
    them) and are not reported; PBS/LSF directives are not read.
    """

    code = "NPU101"
    action = "host-setup"
    fix_availability = FixAvailability.NEVER
    name = "slurm-gpu-request"
    summary = (
        "Report Slurm GPU requests (#SBATCH --gres=gpu:N, --gpus...); NPU resources are site-set."
    )
    trigger = Trigger(tokens=("gpu", "-G"), unit=Unit.FILE, files=SCRIPT_PATTERNS)
    examples = (
        reported(
            "#!/bin/bash\n#SBATCH -N 2\n#SBATCH --gres=gpu:8\nsrun python train.py\n", "job.sh"
        ),
        reported("srun --gpus-per-task=1 -n 8 python train.py\n", "launch.sh"),
        Example(
            "#!/bin/bash\n#SBATCH -N 2\n#SBATCH --cpus-per-task=16\nsrun python train.py\n",
            path="job.sh",
        ),
        Example('echo "requesting 8 gpus"\n', path="launch.sh"),
    )

    def check(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        gpu = re.escape(self.target.cluster_gpu_request)
        self._option = re.compile(
            rf"^(?:--{gpu}s(?:-per-(?:node|task|socket))?|-G|--(?:cpus|mem|ntasks)-per-{gpu}"
            rf"|--{gpu}-(?:bind|freq))(?:=|$)"
        )
        self._gres = re.compile(rf"^--gres(?:=|$)|^--tres-per-task=.*\b{gpu}\b")
        self._gres_value = re.compile(rf"(?:^|[=,/]){gpu}(?::|,|$)")
        offset = 0
        for line in text.splitlines(keepends=True):
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                break
            match = _DIRECTIVE.match(line)
            if match is not None:
                requests = self._requests(_words(match.group("options")))
                if requests:
                    at = offset + match.start("options")
                    found.append(self._report(text, at, "#SBATCH " + requests))
            offset += len(line)
        for command in parse(text).commands:
            name = command.name()
            if name is None or os.path.basename(name) not in _LAUNCHERS:
                continue
            _, _, arguments = command.parts()
            requests = self._requests([unquote(word.text) for word in arguments])
            if requests:
                found.append(self._report(text, arguments[0].start, f"{name} {requests}"))
        return found

    def _requests(self, options: list[str]) -> str:
        """The GPU options among `options`, as written (empty if none)."""
        found: list[str] = []
        for index, option in enumerate(options):
            value = options[index + 1] if index + 1 < len(options) else ""
            if self._option.match(option):
                found.append(
                    option
                    if "=" in option or option.startswith("--gpu-")
                    else f"{option} {value}".strip()
                )
            elif self._gres.match(option):
                text = option if "=" in option else f"{option} {value}"
                if self._gres_value.search(text.split("=", 1)[-1].split(" ", 1)[-1]):
                    found.append(text)
        return " ".join(found)

    def _report(self, text: str, offset: int, found: str) -> Finding:
        line, col = position(line_starts(text), offset)
        return self.warning(
            line,
            col,
            f"{found} requests the cluster's GPUs; {fill('{DEVICE}', self.target)}s are "
            "requested another way",
            fill(
                "request {DEVICE}s as your cluster defines them, often a site-defined GRES such "
                "as --gres={device}:N; not rewritten because resource names are site configuration",
                self.target,
            ),
        )
