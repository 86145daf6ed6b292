"""The settings a rule may read, filled from flags and `[tool.migrate]`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuleOptions:
    """Settings a rule may read, filled from flags and `[tool.migrate]`."""

    entry_points: tuple[str, ...] = ()
    transfer_to_npu: bool = True
    # Files never set up as entries (`--no-entry`), even when launched or detected.
    no_entry_points: tuple[str, ...] = ()
    # The mx_driving patcher: "auto" (where the project imports mmcv/mmdet/mmdet3d),
    # "mx-driving" (every entry) or "none".
    patcher: str = "auto"
    # Whether main blocks that only put a model on the device (evaluation, inference,
    # data preparation) are set up as entries; False reports them instead.
    device_entries: bool = True
    # `--safe-only`: an edit that needs review is not made; it is reported as a warning.
    safe_only: bool = False
