"""NVML queries: pynvml, nvidia_smi, and `nvidia-smi` run from Python."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.contract.rule import Example
from migrator.contract.unsupported import UnsupportedConstruct, fill, reported

_RUNNERS = (
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "os.system",
    "os.popen",
)
_SMI = "nvidia-smi"


def _runs_smi(command: cst.BaseExpression) -> bool:
    """`"nvidia-smi ..."` or `["nvidia-smi", ...]` as a literal command."""
    if isinstance(command, (cst.List, cst.Tuple)):
        if not command.elements:
            return False
        command = command.elements[0].value
    text = string_value(command)
    if text is None:
        return False
    program = text.split(maxsplit=1)[0] if text.strip() else ""
    return program == _SMI or program.endswith("/" + _SMI)


class Pynvml(UnsupportedConstruct):
    """Report NVML GPU queries: `pynvml`, `nvidia_smi`, and `nvidia-smi` run from Python.

    What it reports: each import of `pynvml`, `py3nvml` or `nvidia_smi` (the NVML bindings
    from `nvidia-ml-py` and its forks), each call into them (`pynvml.nvmlInit()`,
    `nvmlDeviceGetMemoryInfo(h)`), and each `subprocess.run/call/check_output/Popen/...` or
    `os.system/popen` call whose literal command is `nvidia-smi` (`"nvidia-smi -L"`,
    `["nvidia-smi", "--query-gpu=memory.used", ...]`). Optional imports are not reported.

    Why: NVML is NVIDIA's driver library; an Ascend host has no `libnvidia-ml.so` and no
    `nvidia-smi`, so `nvmlInit()` raises and the subprocess fails. The NPU's equivalents are
    the `npu-smi info` command (its output format differs, so parsers change too) and, from
    Python, torch's own queries: `torch.npu.mem_get_info()`, `torch.npu.device_count()`,
    `torch.npu.get_device_name()`, `torch.npu.utilization()`.

    Example: `import pynvml` and `pynvml.nvmlInit()` give two warnings;
    `subprocess.check_output(["nvidia-smi", "-L"])` gives one.

    Safety: reports only, never rewrites.

    Caveats: a command held in a variable or built with an f-string is not reported;
    `nvidia-smi` in shell scripts is NPU103's (nvidia-smi).
    """

    code = "NPU061"
    action = "port-code"
    name = "pynvml"
    summary = (
        "Report NVML queries (pynvml, nvidia_smi, nvidia-smi subprocesses) for npu-smi/torch.npu."
    )
    tokens = ("nvml", "nvidia_smi", "nvidia-smi")
    modules = ("pynvml", "py3nvml", "nvidia_smi")
    uses = ("pynvml", "py3nvml", "nvidia_smi", *_RUNNERS)
    message = "NVML (nvidia-smi) talks to the NVIDIA driver, absent on {DEVICE} hosts"
    suggestion = (
        "use {device_query} on the host, or torch.{device}.mem_get_info() / "
        "torch.{device}.device_count() from Python"
    )
    examples = (
        reported("import pynvml\npynvml.nvmlInit()\n"),
        reported('import subprocess\nout = subprocess.check_output(["nvidia-smi", "-L"])\n'),
        Example('import subprocess\nsubprocess.run(["ls", "-l"])\n'),
        Example('print("run nvidia-smi to check memory")\n'),
    )

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        if name in _RUNNERS:
            command = find_arg(call, 0, "args") if call is not None else None
            if command is None and call is not None:
                command = find_arg(call, None, "cmd") or find_arg(call, None, "command")
            if command is None or not _runs_smi(command.value):
                return None
            return fill("runs nvidia-smi, which {DEVICE} hosts do not have", self.target)
        return super().describe(name, call)
