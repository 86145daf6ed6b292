"""Version numbers as the Python stack and Ascend's packages write them, and their order."""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version


def release(text: str) -> str:
    """`2.7.1+cpu` -> `2.7.1`; `2.7.1.post2` -> `2.7.1.post2` (a local build label dropped)."""
    return text.split("+", 1)[0]


def base(text: str) -> str | None:
    """The torch release a version belongs to: `2.7.1.post11` -> `2.7.1`, `2.6.0rc1` -> `2.6.0`."""
    try:
        return Version(release(text)).base_version
    except InvalidVersion:
        return None


def at_least(found: str, minimum: str) -> bool | None:
    try:
        return Version(release(found)) >= Version(minimum)
    except InvalidVersion:
        return None


_ASCEND = re.compile(r"(\d+)\.(\d+)(?:\.(?:(?P<rc>RC|rc|T)(?P<n>\d+)|(?P<patch>\d+)))?(?:\.(\d+))?")


def ascend_key(text: str) -> tuple[int, ...] | None:
    """Order of CANN / driver versions: `24.1.RC2` < `24.1.RC3` < `24.1.0` < `24.1.0.1`.

    A release candidate comes before the release of the same major.minor.
    """
    found = _ASCEND.match(text.strip())
    if found is None:
        return None
    major, minor = int(found.group(1)), int(found.group(2))
    extra = int(found.group(6) or 0)
    if found.group("rc"):
        return major, minor, 0, int(found.group("n")), extra
    return major, minor, 1, int(found.group("patch") or 0), extra
