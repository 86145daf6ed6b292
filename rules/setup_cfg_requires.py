"""CUDA requirements in `setup.cfg`'s `install_requires` / `extras_require`."""

from __future__ import annotations

import re

from migrator.analysis.requirement_report import requirement_warning
from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill, reported
from migrator.core.model import Finding, FixAvailability

_SECTION = re.compile(r"^\[(?P<name>[^\]]+)\]\s*$")
_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*)\s*[=:]\s*(?P<value>.*)$")
_LIST_KEYS = frozenset({"install_requires", "setup_requires"})


class SetupCfgRequires(TextRule):
    """Report CUDA requirements in `setup.cfg`, with the line and what the NPU needs.

    What it reports: each requirement line of `[options] install_requires` /
    `setup_requires` and of every key of `[options.extras_require]` that NPU102 would
    change or report in a requirements file (torch's CUDA wheels and Triton, a `+cuXXX`
    torch or a torch pin with no torch-npu release, CUDA-only wheels with what to do
    instead). Nothing is rewritten.

    Why: as for requirements files (NPU102). setuptools' declarative config is read by
    setuptools, and setup.cfg's list syntax (one requirement per indented line, `;`
    markers, `file:` includes) is a report's business until a person confirms the new
    pins.

    Example: `install_requires =\\n    torch==2.0.1+cu118` is reported at the torch line.

    Safety: reports only.
    """

    code = "NPU115"
    action = "dependencies"
    fix_availability = FixAvailability.NEVER
    name = "setup-cfg-requires"
    summary = "Report CUDA wheels and torch pins without a torch-npu release in setup.cfg."
    trigger = Trigger(
        tokens=("install_requires", "extras_require", "setup_requires"),
        unit=Unit.FILE,
        files=("setup.cfg",),
    )
    examples = (
        reported("[options]\ninstall_requires =\n    numpy\n    torch==2.0.1+cu118\n", "setup.cfg"),
        Example("[options]\ninstall_requires =\n    numpy\n    torch>=2.1\n", None, "setup.cfg"),
    )

    def check(self, text: str) -> list[Finding]:
        self._found: list[Finding] = []
        section = ""
        listing = False
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            header = _SECTION.match(stripped)
            if header is not None:
                section, listing = header.group("name").strip(), False
                continue
            if not stripped or stripped.startswith(("#", ";")):
                continue
            indented = line[:1].isspace()
            if not indented:
                key = _KEY.match(stripped)
                listing = False
                if key is None:
                    continue
                name = key.group("key")
                listing = (section == "options" and name in _LIST_KEYS) or (
                    section == "options.extras_require"
                )
                value = key.group("value").strip()
                if listing and value:
                    self._check(number, line.index(value) + 1, value)
            elif listing:
                self._check(number, len(line) - len(line.lstrip()) + 1, stripped)
        return self._found

    def _check(self, line: int, column: int, value: str) -> None:
        if value.startswith("file:"):
            return
        requirement = value.split(" #", 1)[0].strip()
        found = requirement_warning(requirement, self.target)
        if found is not None:
            message, suggestion = found
            self._report(line, column, message, fill(suggestion, self.target))

    def _report(self, line: int, col: int, message: str, suggestion: str = "") -> None:
        self._found.append(self.warning(line, col, message, suggestion))
