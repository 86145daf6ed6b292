"""Environment variables that configure the emulator, read in one place."""

from __future__ import annotations

import os
from collections.abc import Mapping

#: "1" in environments made by emulation_env() (and so under the CLI). The emulator does
#: not read it; it tells programs and test harnesses that they run emulated.
ENV_ACTIVE = "NPU_MIGRATOR_EMULATE"
#: Number of emulated NPUs on the host (default 1), like the cards in one Ascend server.
ENV_DEVICES = "NPU_MIGRATOR_EMULATE_DEVICES"
#: Folder that holds the ``npu_emulator`` package, so that child processes can import it.
ENV_HOME = "NPU_MIGRATOR_EMULATE_HOME"
#: Folder where each emulated process writes a JSON report of what it did (report.py).
ENV_REPORT = "NPU_MIGRATOR_EMULATE_REPORT"
#: Folders (``os.pathsep``-separated) holding the project's own files: the code whose use
#: of torch names newer than the host's torch fails as on the host (drift.py). Default:
#: the working directory; ``python -m npu_emulator`` adds the script's folder.
ENV_PROJECT = "NPU_MIGRATOR_EMULATE_PROJECT"
#: Set by CANN on an Ascend host; under emulation it names a placeholder folder.
ENV_CANN = "ASCEND_HOME_PATH"
#: Ascend's counterpart of CUDA_VISIBLE_DEVICES; the emulator honours it too.
ENV_VISIBLE = "ASCEND_RT_VISIBLE_DEVICES"

DEFAULT_DEVICES = 1


def physical_device_count(environ: Mapping[str, str] | None = None) -> int:
    """The number of emulated cards, from ``NPU_MIGRATOR_EMULATE_DEVICES``."""
    env = os.environ if environ is None else environ
    raw = env.get(ENV_DEVICES, "").strip()
    if not raw:
        return DEFAULT_DEVICES
    try:
        count = int(raw)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError(f"{ENV_DEVICES} must be a whole number >= 1, got {raw!r}")
    return count


def visible_device_count(environ: Mapping[str, str] | None = None) -> int:
    """Cards the process may use: all of them, or those ``ASCEND_RT_VISIBLE_DEVICES`` names.

    As on a real host, ids in the list that do not exist are dropped.
    """
    env = os.environ if environ is None else environ
    physical = physical_device_count(env)
    raw = env.get(ENV_VISIBLE)
    if raw is None:
        return physical
    ids = {int(part) for part in raw.split(",") if part.strip().isdigit()}
    return len([i for i in ids if i < physical])
