"""Which torch-npu release a migration targets, and why: one pure function.

The order (issue 14): an explicit choice (`--torch-npu VERSION` or `torch-npu = "..."` in
`[tool.migrate]`); else the project's own torch-npu pin; else the newest torch-npu release
whose torch matches the project's torch pin; else the default, the newest 2.7.1.postN in the
data file (torch 2.7.1 is the stack of a DiT4DiT Ascend host, and mx-driving needs torch <
2.9).

Only releases in the data file can be chosen: the rules and the emulator read their names
and kernels from it. A requirement with no upper bound (`torch>=2.1`, `torch-npu`) does not
pin a release: it says what the project runs on at least, not what its host has, so it
falls through to the next step (else every loose `torch>=2.0` would pick the newest
torch-npu, whose torch no mx-driving release supports).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from migrator import data

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

_UPPER = ("==", "===", "~=", "<", "<=")


@dataclass(frozen=True)
class TargetRelease:
    """The torch-npu release a migration targets and the sentence that says why."""

    version: str
    reason: str


class UnknownRelease(ValueError):
    """An explicit torch-npu release that the data file does not describe."""


def _specifier(text: str) -> SpecifierSet | None:
    """`torch==2.7.1`, `==2.7.1`, `>=2.6,<2.8` or a bare `2.7.1` as a specifier set."""
    # A local label (`torch==2.7.1+cpu`) names a build of that release.
    # Imported here: the default release (a project that pins nothing) never needs it.
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    text = re.sub(r"\+[A-Za-z0-9.]+", "", text.strip())
    try:
        return SpecifierSet(f"=={Version(text)}")
    except InvalidVersion:
        pass
    if text[:1] in "=<>~!":
        try:
            return SpecifierSet(text)
        except InvalidSpecifier:
            return None
    # Imported here: the requirement parser is a tenth of a run's start-up, and the default
    # release, an explicit version and a specifier never need it.
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(text).specifier
    except (InvalidSpecifier, InvalidRequirement):
        return None


def _pins(spec: SpecifierSet) -> bool:
    return any(s.operator in _UPPER for s in spec)


def _order(versions: Collection[str]) -> Callable[[str], Any]:
    """A sort key for `versions`, as PEP 440 orders them: the data file's release numbers
    (`data.version_key`) where every one is such a number, which orders them so (but for
    PEP 440's ties, `2.7` and `2.7.0`, which the data does not hold) and imports no
    packaging.version (2 ms of every run's start, for the default release's choice)."""
    try:
        for version in versions:
            data.version_key(version)
    except ValueError:
        from packaging.version import Version

        return Version
    return data.version_key


def _newest(candidates: list[str]) -> str | None:
    return max(candidates, key=_order(candidates)) if candidates else None


def resolve(
    explicit: str | None = None,
    *,
    explicit_origin: str = "--torch-npu",
    project_torch_npu: str | None = None,
    project_torch: str | None = None,
    releases: Mapping[str, str] | None = None,
) -> TargetRelease:
    """Choose the target torch-npu release.

    `explicit` is the user's choice and `explicit_origin` where it came from (the flag or
    `[tool.migrate] torch-npu`); the project pins are requirement strings or specifiers as
    found in its requirements (`torch-npu==2.7.1.post2`, `torch>=2.6,<2.8`). `releases`
    maps torch-npu release -> its torch version (default: the data file's). Raises
    UnknownRelease when `explicit` matches no release in the data.
    """
    if releases is None:
        releases = {v: data.torch_npu_release(v).torch_version for v in data.versions()}
    known = sorted(releases, key=_order(releases))
    if explicit is not None:
        spec = _specifier(explicit)
        chosen = _newest([v for v in known if spec is not None and spec.contains(v)])
        if chosen is None:
            raise UnknownRelease(
                f"{explicit_origin} {explicit}: no such torch-npu release in the data file "
                f"(known: {', '.join(known)})"
            )
        return TargetRelease(chosen, f"{explicit_origin} {explicit}")
    notes: list[str] = []
    if project_torch_npu is not None:
        spec = _specifier(project_torch_npu)
        if spec is not None and _pins(spec):
            chosen = _newest([v for v in known if spec.contains(v)])
            if chosen is not None:
                return TargetRelease(chosen, f"the project's torch-npu pin {project_torch_npu}")
            notes.append(
                f"the project's torch-npu pin {project_torch_npu} matches no release in the data"
            )
        else:
            notes.append(f"the project's torch-npu requirement {project_torch_npu} pins nothing")
    if project_torch is not None:
        spec = _specifier(project_torch)
        if spec is not None and _pins(spec):
            matching = [v for v in known if spec.contains(releases[v])]
            chosen = _newest(matching)
            if chosen is not None:
                return TargetRelease(
                    chosen,
                    f"the newest torch-npu for the project's torch pin {project_torch} "
                    f"(torch {releases[chosen]})",
                )
            notes.append(f"no torch-npu release in the data is for the torch pin {project_torch}")
        else:
            notes.append(f"the project's torch requirement {project_torch} pins nothing")
    default = _newest([v for v in known if v.startswith("2.7.1.post")]) or known[-1]
    reason = (
        f"the default, the newest torch-npu 2.7.1.postN (torch {releases[default]}, "
        "the stack of a DiT4DiT Ascend host; mx-driving needs torch < 2.9)"
    )
    if notes:
        reason += ": " + "; ".join(notes)
    return TargetRelease(default, reason)
