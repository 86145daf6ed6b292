"""NVML queries: pynvml, nvidia_smi, and `nvidia-smi` run from Python."""

from __future__ import annotations

import ast

import libcst as cst

from migrator.analysis.ast_lines import statement_nodes
from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.contract.rule import Example, RuleContext
from migrator.contract.trigger import RegionView, Trigger
from migrator.contract.unsupported import UnsupportedConstruct, covers, fill, reported

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
    return text is not None and _runs_smi_text(text)


def _runs_smi_text(text: str) -> bool:
    program = text.split(maxsplit=1)[0] if text.strip() else ""
    return program == _SMI or program.endswith("/" + _SMI)


_MODULES = ("pynvml", "py3nvml", "nvidia_smi")
_USES = frozenset((*_MODULES, *_RUNNERS))


def _may_report(region: RegionView) -> bool:
    """Whether a region can hold a report, read from the stdlib tree: a name under the
    modules or a runner (what `UnsupportedConstruct` reports at an import, a call or a
    decorator, a runner's command included), or a list or tuple literal whose first
    element is a string running `nvidia-smi` (`_argv`; an f-string counts). torch's
    hipify tables (`("nvmlDeviceGetCount", ...)`, 140 kB in one statement) hold
    neither."""
    if covers(region.qualified, _USES):
        return True
    for statement in region.statements:
        for node in statement_nodes(statement):
            if type(node) in (ast.List, ast.Tuple):
                assert isinstance(node, (ast.List, ast.Tuple))
                head = node.elts[0] if node.elts else None
                # The rule reads a starred head's string as well (`[*"nvidia-smi"]`).
                if isinstance(head, ast.Starred):
                    head = head.value
                if isinstance(head, ast.JoinedStr) or (
                    isinstance(head, ast.Constant)
                    and isinstance(head.value, str)
                    and _runs_smi_text(head.value)
                ):
                    return True
    return False


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

    A command list held in a variable is reported where it is written: a list or tuple
    literal whose first element is the `nvidia-smi` program (`cmd = ["nvidia-smi",
    "--query-gpu=index", "--format=csv,noheader"]`, later `subprocess.run(cmd)`), since such
    a list is an argv by construction; one passed straight to a runner is reported once, at
    the call.

    Example: `import pynvml` and `pynvml.nvmlInit()` give two warnings;
    `subprocess.check_output(["nvidia-smi", "-L"])` gives one, and so does
    `cmd = ["nvidia-smi", "-L"]`.

    Safety: reports only, never rewrites.

    Caveats: a command string held in a variable (`cmd = "nvidia-smi -L"`) or built with an
    f-string is not reported (a string naming it may be a log message);
    `nvidia-smi` in shell scripts is NPU103's (nvidia-smi).
    """

    code = "NPU061"
    action = "port-code"
    name = "pynvml"
    summary = (
        "Report NVML queries (pynvml, nvidia_smi, nvidia-smi subprocesses) for npu-smi/torch.npu."
    )
    trigger = Trigger(tokens=("nvml", "nvidia_smi", "nvidia-smi"), region=_may_report)
    modules = _MODULES
    uses = (*_MODULES, *_RUNNERS)
    message = "NVML (nvidia-smi) talks to the NVIDIA driver, absent on {DEVICE} hosts"
    suggestion = (
        "use {device_query} on the host, or torch.{device}.mem_get_info() / "
        "torch.{device}.device_count() from Python"
    )
    examples = (
        reported("import pynvml\npynvml.nvmlInit()\n"),
        reported('import subprocess\nout = subprocess.check_output(["nvidia-smi", "-L"])\n'),
        reported('import subprocess\ncmd = ["nvidia-smi", "-L"]\nsubprocess.run(cmd)\n'),
        Example('import subprocess\nsubprocess.run(["ls", "-l"])\n'),
        Example('cmd = ["echo", "nvidia-smi"]\n'),
        Example('print("run nvidia-smi to check memory")\n'),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        # argv lists already reported at the runner call they are passed to.
        self._at_call: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        runner = self.qualname(node.func) in _RUNNERS
        for arg in node.args if runner else ():
            if isinstance(arg.value, (cst.List, cst.Tuple)) and _runs_smi(arg.value):
                self._at_call.add(id(arg.value))
        super().visit_Call(node)

    def _argv(self, node: cst.List | cst.Tuple) -> None:
        if id(node) in self._at_call or not _runs_smi(node):
            return
        self.warn(
            node,
            fill("an nvidia-smi command line; {DEVICE} hosts have no nvidia-smi", self.target),
            fill(self.suggestion, self.target),
        )

    def visit_List(self, node: cst.List) -> None:
        self._argv(node)

    def visit_Tuple(self, node: cst.Tuple) -> None:
        self._argv(node)

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        if name in _RUNNERS:
            command = find_arg(call, 0, "args") if call is not None else None
            if command is None and call is not None:
                command = find_arg(call, None, "cmd") or find_arg(call, None, "command")
            if command is None or not _runs_smi(command.value):
                return None
            return fill("runs nvidia-smi, which {DEVICE} hosts do not have", self.target)
        return super().describe(name, call)
