"""Finding and running golden cases: tests/golden/<rule-name>/<case>.in.<ext>.

Beside each input: `<case>.out.<ext>` (the expected output; equal to the input when the
rule must leave it alone), `<case>.changes` (the expected report lines) and optionally
`<case>.path` (the project-relative path the rule sees, for rules limited to some paths)
and `<case>.project.json` (project facts: `torch_npu`, the target release, and lists of
the fields of `fp16_scalers` / `npu_grad_scalers` `[path, line, how]`, `imports`
`[package, path, line]`, `pins` `[name, specifier, marker, path, line]`, `config_fp16`
`[path, source, line, how, inherited]`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from migrator.contract.rule import Rule, RuleOptions
from migrator.core.model import FileResult
from migrator.core.project import EMPTY, ConfigFp16, Fp16Scaler, Import, Pin, ProjectView
from migrator.core.target import NPU, Target
from migrator.data.release import resolve
from migrator.engine import registry
from migrator.engine.files import migrate_text
from migrator.engine.settings import Settings

GOLDEN = Path(__file__).parent / "golden"


@dataclass(frozen=True)
class Case:
    rule: type[Rule]
    folder: Path
    name: str
    suffix: str

    @property
    def id(self) -> str:
        return f"{self.rule.name}/{self.name}"

    @property
    def source(self) -> Path:
        return self.folder / f"{self.name}.in{self.suffix}"

    @property
    def expected(self) -> Path:
        return self.folder / f"{self.name}.out{self.suffix}"

    @property
    def changes_file(self) -> Path:
        return self.folder / f"{self.name}.changes"

    @property
    def path(self) -> str:
        override = self.folder / f"{self.name}.path"
        if override.exists():
            return override.read_text().strip()
        return f"{self.name}{self.suffix}"

    @property
    def options(self) -> RuleOptions:
        file = self.folder / f"{self.name}.options.json"
        if not file.exists():
            return RuleOptions()
        raw = json.loads(file.read_text())
        return RuleOptions(
            entry_points=tuple(raw.get("entry_points", ())),
            transfer_to_npu=raw.get("transfer_to_npu", True),
            no_entry_points=tuple(raw.get("no_entry_points", ())),
            patcher=raw.get("patcher", "auto"),
        )

    @property
    def project(self) -> ProjectView:
        file = self.folder / f"{self.name}.project.json"
        if not file.exists():
            return EMPTY
        raw = json.loads(file.read_text())
        release = raw.get("torch_npu")
        return ProjectView(
            fp16_scalers=tuple(Fp16Scaler(*item) for item in raw.get("fp16_scalers", ())),
            npu_grad_scalers=tuple(Fp16Scaler(*i) for i in raw.get("npu_grad_scalers", ())),
            imports=tuple(Import(*item) for item in raw.get("imports", ())),
            pins=tuple(Pin(*item) for item in raw.get("pins", ())),
            config_fp16=tuple(ConfigFp16(*item) for item in raw.get("config_fp16", ())),
            release=None if release is None else resolve(release),
        )


def cases() -> list[Case]:
    loaded = registry.load()
    by_name = {rule.name: rule for rule in loaded.rules}
    found: list[Case] = []
    for folder in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        rule = by_name.get(folder.name)
        if rule is None:
            raise AssertionError(f"{folder}: no rule is named {folder.name!r}")
        for source in sorted(folder.glob("*.in.*")):
            name, _, suffix = source.name.partition(".in")
            found.append(Case(rule, folder, name, suffix))
    return found


def run_case(case: Case, data: bytes, *, full: bool, target: Target = NPU) -> FileResult:
    settings = Settings(target, (case.rule.code,), case.options, full=full, project=case.project)
    return migrate_text(case.path, data, settings)


def report_lines(result: FileResult) -> list[str]:
    lines = [change.format() for change in result.changes]
    lines += [warning.format() for warning in result.warnings]
    lines += [item.format() for item in result.suppressed]
    if result.error:
        lines.append(f"error: {result.error}")
    return lines
