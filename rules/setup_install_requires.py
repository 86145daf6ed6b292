"""CUDA requirements in `setup.py`'s `install_requires` / `extras_require`."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.analysis.requirement_report import requirement_warning
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill, reported
from migrator.core.model import FixAvailability

_SETUP = frozenset({"setuptools.setup", "distutils.core.setup"})
_KEYWORDS = ("install_requires", "extras_require", "setup_requires")


class SetupInstallRequires(PythonRule):
    """Report CUDA requirements in `setup.py`, with the line and what the NPU needs.

    What it reports, in `setuptools.setup(...)` calls of `setup.py`: each string of
    `install_requires`, `setup_requires` and the lists of `extras_require` (written in
    the call, or as a list bound to a module-level name the call passes) that NPU102
    would change or report in a requirements file: torch's CUDA wheels and Triton, a
    `+cuXXX` torch or a torch pin with no torch-npu release (with the release to pin), and
    CUDA-only wheels with what to do instead. Nothing is rewritten.

    Why: the same as for requirements files, but `setup.py` is code: requirements built
    by reading files, joined or filtered at run time cannot be rewritten safely, so the
    report names the line and a person edits it.

    Example: `setup(install_requires=["torch==2.0.1+cu118"])` is reported.

    Left alone: files other than `setup.py`, ranges of torch (`torch>=2.1`), other calls.

    Safety: reports only.
    """

    code = "NPU082"
    action = "dependencies"
    fix_availability = FixAvailability.NEVER
    name = "setup-install-requires"
    summary = (
        "Report CUDA wheels and torch pins without a torch-npu release in setup.py requirements."
    )
    trigger = Trigger(
        tokens=("install_requires", "extras_require", "setup_requires"),
        unit=Unit.MODULE,
        paths=("setup.py", "*/setup.py"),
    )
    examples = (
        reported(
            "from setuptools import setup\n"
            'setup(name="x", install_requires=["torch==2.0.1+cu118"])\n',
            "setup.py",
        ),
        Example(
            'from setuptools import setup\nsetup(name="x", install_requires=["numpy>=1.24"])\n',
            None,
            "setup.py",
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._lists: dict[str, cst.BaseExpression] = {}

    def visit_Module(self, node: cst.Module) -> None:
        for statement in node.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                ):
                    self._lists[small.targets[0].target.value] = small.value

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualname(node.func) not in _SETUP:
            return
        for keyword in _KEYWORDS:
            arg = find_arg(node, None, keyword)
            if arg is not None:
                self._value(arg.value, keyword == "extras_require")

    def _value(self, value: cst.BaseExpression, extras: bool) -> None:
        if isinstance(value, cst.Name) and value.value in self._lists:
            value = self._lists[value.value]
        if extras and isinstance(value, cst.Dict):
            for element in value.elements:
                if isinstance(element, cst.DictElement):
                    self._value(element.value, False)
        elif isinstance(value, (cst.List, cst.Tuple)):
            for item in value.elements:
                self._string(item.value)

    def _string(self, node: cst.BaseExpression) -> None:
        text = string_value(node)
        if text is None:
            return
        found = requirement_warning(text.strip(), self.target)
        if found is not None:
            message, suggestion = found
            self.warn(node, message, fill(suggestion, self.target))
