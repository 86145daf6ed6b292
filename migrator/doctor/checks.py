"""The checks in the order the report shows them, and the function that runs them."""

from __future__ import annotations

from migrator.doctor import cann, devices, offline, project, python_stack
from migrator.doctor.context import Check, Context, Options
from migrator.doctor.host import Host
from migrator.doctor.model import CheckResult, Report

CHECKS: tuple[Check, ...] = (
    *python_stack.CHECKS,
    *cann.CHECKS,
    *devices.CHECKS,
    *project.CHECKS,
    *offline.CHECKS,
)


def run_checks(host: Host, options: Options) -> Report:
    context = Context(host, options)
    findings: list[CheckResult] = []
    for check in CHECKS:
        findings.extend(check(context))
    return Report(tuple(findings))
