"""Offline training hosts: what the environment and the project's scripts say about the
network (wandb, the Hugging Face hub). The doctor never touches the network itself, so
these are advice, never blocking.
"""

from __future__ import annotations

import re

from migrator.doctor.context import Check, Context
from migrator.doctor.model import CheckResult, Status

SECTION = "Offline host"
HUB_USERS = ("transformers", "diffusers", "huggingface_hub", "datasets")
_YES = ("1", "true", "yes", "on")
OFFLINE_VALUES = {
    "WANDB_MODE": ("offline", "disabled", "dryrun"),
    "HF_HUB_OFFLINE": _YES,
    "TRANSFORMERS_OFFLINE": _YES,
}


def set_by_scripts(ctx: Context, name: str) -> list[str]:
    """`file:line NAME=value` for each place a shell script or Python file sets `name`."""
    shell = re.compile(rf"^\s*(?:export\s+)?{name}=(?P<value>[^\s;#]*)")
    python = re.compile(
        rf"""environ(?:\[\s*|\.setdefault\(\s*)['"]{name}['"]\s*(?:\]\s*=|,)\s*['"](?P<value>[^'"]*)"""
    )
    found: list[str] = []
    for rel, text in ctx.texts.items():
        pattern = (
            shell if rel.endswith((".sh", ".bash")) else python if rel.endswith(".py") else None
        )
        if pattern is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            match = pattern.search(line)
            if match:
                value = match.group("value").strip("'\"")
                found.append(f"{rel}:{number} {name}={value}")
    return found


def _offline(name: str, value: str) -> bool:
    return any(v in value.lower() for v in OFFLINE_VALUES[name])


def offline_checks(ctx: Context) -> list[CheckResult]:
    env = ctx.host.env
    findings: list[CheckResult] = []
    wandb_users = ctx.uses("wandb")
    where = set_by_scripts(ctx, "WANDB_MODE")
    value = env.get("WANDB_MODE")
    evidence = f"WANDB_MODE={value if value is not None else '(unset)'}" + (
        f"; set in {', '.join(where[:2])}" if where else ""
    )
    if (value is not None and _offline("WANDB_MODE", value)) or any(
        _offline("WANDB_MODE", w) for w in where
    ):
        findings.append(
            CheckResult(
                "offline.wandb", SECTION, "wandb", Status.OK, evidence + " (no network needed)"
            )
        )
    elif wandb_users:
        findings.append(
            CheckResult(
                "offline.wandb", SECTION, "wandb", Status.WARN,
                f"{evidence}; {wandb_users[0]} imports wandb, which needs wandb.ai unless offline",
                "on a host without internet: export WANDB_MODE=offline "
                "(sync later with `wandb sync`)",
            )
        )  # fmt: skip
    else:
        findings.append(
            CheckResult(
                "offline.wandb",
                SECTION,
                "wandb",
                Status.SKIP,
                f"{evidence}; the project does not import wandb",
            )
        )
    hub_users = [rel for module in HUB_USERS for rel in ctx.uses(module)]
    names = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    seen = [f"{n}={env[n]}" for n in names if n in env]
    scripted = [w for n in names for w in set_by_scripts(ctx, n)]
    evidence = ", ".join(seen) or "HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE unset"
    if scripted:
        evidence += f"; set in {', '.join(scripted[:2])}"
    offline = any(_offline(n, env[n]) for n in names if n in env) or bool(scripted)
    if offline:
        findings.append(
            CheckResult(
                "offline.hub", SECTION, "Hugging Face hub", Status.OK,
                f"{evidence}: models, tokenizers and datasets must already be in local folders "
                "or the hub cache",
            )
        )  # fmt: skip
    elif hub_users:
        findings.append(
            CheckResult(
                "offline.hub", SECTION, "Hugging Face hub", Status.WARN,
                f"{evidence}; {hub_users[0]} loads from the hub, which an offline host "
                "cannot reach",
                "on a host without internet: copy the weights/tokenizers to local folders (or "
                "the hub cache), pass those paths, and export HF_HUB_OFFLINE=1",
            )
        )  # fmt: skip
    else:
        findings.append(
            CheckResult(
                "offline.hub",
                SECTION,
                "Hugging Face hub",
                Status.SKIP,
                f"{evidence}; no hub library imported",
            )
        )
    return findings


CHECKS: tuple[Check, ...] = (offline_checks,)
