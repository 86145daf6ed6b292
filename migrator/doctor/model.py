"""What a check finds, and the report the command prints: value types only."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

# Bumped when a key of `Report.to_json` changes meaning or goes away (adding keys does not).
JSON_SCHEMA = 1


class Status(Enum):
    OK = "ok"
    WARN = "warn"  # training may still start; worth a look
    FAIL = "fail"  # blocks training: the report's exit code is 1
    UNKNOWN = "unknown"  # the doctor cannot tell (a fact it cannot see or cite)
    SKIP = "skip"  # does not apply to this host or project


@dataclass(frozen=True)
class CheckResult:
    """One check's result: what was seen (`evidence`) and, unless it passed, one fix."""

    id: str
    section: str
    title: str
    status: Status
    evidence: str
    fix: str | None = None

    @property
    def blocking(self) -> bool:
        return self.status is Status.FAIL

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "section": self.section,
            "title": self.title,
            "status": self.status.value,
            "blocking": self.blocking,
            "evidence": self.evidence,
            "fix": self.fix,
        }


@dataclass(frozen=True)
class Report:
    findings: tuple[CheckResult, ...]

    @property
    def blocking(self) -> tuple[CheckResult, ...]:
        return tuple(f for f in self.findings if f.blocking)

    @property
    def exit_code(self) -> int:
        return 1 if self.blocking else 0

    def counts(self) -> dict[str, int]:
        return {s.value: sum(f.status is s for f in self.findings) for s in Status}

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": JSON_SCHEMA,
            "exit_code": self.exit_code,
            "counts": self.counts(),
            "checks": [f.to_json() for f in self.findings],
        }

    def text(self) -> str:
        marks = {
            Status.OK: "  ok  ", Status.WARN: " warn ", Status.FAIL: " FAIL ",
            Status.UNKNOWN: "  ??  ", Status.SKIP: " skip ",
        }  # fmt: skip
        lines: list[str] = []
        section = ""
        for finding in self.findings:
            if finding.section != section:
                section = finding.section
                lines.append(f"{'' if not lines else chr(10)}{section}")
            lines.append(f"  [{marks[finding.status]}] {finding.title}: {finding.evidence}")
            if finding.fix and finding.status is not Status.OK:
                lines.append(f"           fix: {finding.fix}")
        counts = self.counts()
        lines.append(
            f"\n{counts['fail']} blocking, {counts['warn']} warnings, {counts['unknown']} unknown, "
            f"{counts['ok']} ok, {counts['skip']} skipped"
        )
        return "\n".join(lines) + "\n"
