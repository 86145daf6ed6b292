"""Choosing rules: a profile's rules, narrowed by `--select` / `--ignore` code prefixes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from migrator.contract.rule import Rule


class SelectionError(ValueError):
    pass


def split_codes(values: Iterable[str]) -> list[str]:
    """`("NPU0,NPU1", "DIT")` -> ["NPU0", "NPU1", "DIT"] (upper-cased)."""
    return [part.strip().upper() for value in values for part in value.split(",") if part.strip()]


def select(
    rules: Sequence[type[Rule]],
    selected: Sequence[str],
    ignored: Sequence[str],
    known: Sequence[type[Rule]],
) -> list[type[Rule]]:
    """Rules whose code starts with a selected prefix (all if none) and no ignored one."""
    for prefix in [*selected, *ignored]:
        if not any(rule.code.startswith(prefix) for rule in known):
            raise SelectionError(f"unknown rule code or prefix {prefix!r} (see --list-rules)")
    chosen = [
        rule
        for rule in rules
        if (not selected or any(rule.code.startswith(p) for p in selected))
        and not any(rule.code.startswith(p) for p in ignored)
    ]
    return chosen
