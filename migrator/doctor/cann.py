"""CANN and the NPU driver: the toolkit, its version, set_env.sh, the pairings.

Where the toolkit records its version follows Ascend's "File Paths" page of the CANN
installation guide (https://www.hiascend.com/document/detail/en/canncommercial/800/softwareinst/instg/instg_0044.html):
`<install>/ascend-toolkit/latest/<arch>-linux/ascend_toolkit_install.info` (root: under
/usr/local/Ascend, other users: under ~/Ascend); from CANN 8.5.0 the toolkit installs to
`<install>/cann/` (the same page for 8.5.0, .../canncommercial/850/...). Older toolkits
carry a `version.cfg` instead.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from pathlib import Path

from migrator import data
from migrator.doctor.context import Check, Context
from migrator.doctor.model import CheckResult, Status
from migrator.doctor.versions import ascend_key, release

SECTION = "CANN and driver"
DEFAULTS = ("/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/cann")
USER_DEFAULTS = ("Ascend/ascend-toolkit/latest", "Ascend/cann")
DRIVER_VERSION_FILE = "/usr/local/Ascend/driver/version.info"
_VERSION = re.compile(r"^\s*(?:version|Version)\s*=\s*\[?([0-9A-Za-z.]+)", re.MULTILINE)


@cache
def driver_table() -> dict[str, tuple[str, str]]:
    """CANN release -> (driver release Ascend pairs with it, the source of the row)."""
    text = resources.files(__package__).joinpath("drivers.json").read_text(encoding="utf-8")
    rows = json.loads(text)["rows"]
    return {row["cann"]: (row["driver"], row["source"]) for row in rows}


def toolkit(ctx: Context) -> tuple[str, str] | None:
    """(host path of the toolkit, where it was found) or None."""
    env = ctx.host.env
    candidates = [
        (env[name], f"${name}")
        for name in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH")
        if env.get(name)
    ]
    candidates += [(path, "default location") for path in DEFAULTS]
    home = env.get("HOME")
    if home:
        candidates += [(f"{home.rstrip('/')}/{rel}", "per-user location") for rel in USER_DEFAULTS]
    for path, origin in candidates:
        if ctx.host.path(path).is_dir():
            return path, origin
    return None


def toolkit_version(ctx: Context, path: str) -> tuple[str, str] | None:
    """(version, host path of the file it came from)."""
    folder = ctx.host.path(path)
    files = [*sorted(folder.glob("*-linux/ascend_toolkit_install.info")), folder / "version.cfg"]
    for file in files:
        try:
            found = _VERSION.search(file.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if found:
            shown = f"{path.rstrip('/')}/{file.relative_to(folder).as_posix()}"
            return found.group(1), shown
    return None


def set_env_script(ctx: Context) -> str:
    found = toolkit(ctx)
    if found is not None:
        for candidate in (
            f"{found[0].rstrip('/')}/set_env.sh",
            f"{Path(found[0]).parent!s}/set_env.sh",
        ):
            if ctx.host.path(candidate).is_file():
                return candidate
    return "/usr/local/Ascend/ascend-toolkit/set_env.sh"


def expected_cann(ctx: Context) -> str | None:
    npu = ctx.version("torch-npu")
    if npu is None:
        return None
    version = release(npu)
    if version in data.versions("torch_npu"):
        cann = data.torch_npu_release(version).cann
        if cann is not None:
            return cann
    row = data.cann_table().get(version)
    return row[0] if row is not None else None


def toolkit_checks(ctx: Context) -> list[CheckResult]:
    found = toolkit(ctx)
    wanted = expected_cann(ctx)
    if found is None:
        looked = (
            "$ASCEND_TOOLKIT_HOME, $ASCEND_HOME_PATH, " + ", ".join(DEFAULTS) + ", ~/Ascend/..."
        )
        return [
            CheckResult(
                "cann.toolkit", SECTION, "CANN toolkit", Status.FAIL, f"not found ({looked})",
                f"install the CANN toolkit{f' {wanted}' if wanted else ''} (Ascend-cann-toolkit_"
                "<version>_linux-<arch>.run) and its ops package",
            )
        ]  # fmt: skip
    path, origin = found
    findings = [
        CheckResult("cann.toolkit", SECTION, "CANN toolkit", Status.OK, f"{path} ({origin})")
    ]
    version = toolkit_version(ctx, path)
    if version is None:
        findings.append(
            CheckResult(
                "cann.version", SECTION, "CANN version", Status.UNKNOWN,
                f"no ascend_toolkit_install.info or version.cfg under {path}",
                "reinstall the toolkit: its version file is missing",
            )
        )  # fmt: skip
    else:
        findings.append(
            CheckResult(
                "cann.version", SECTION, "CANN version", Status.OK, f"{version[0]} ({version[1]})"
            )
        )
    findings.append(_sourced(ctx, path))
    findings.append(_pairing(ctx, None if version is None else version[0], wanted))
    return findings


def driver_check(ctx: Context) -> list[CheckResult]:
    found = toolkit(ctx)
    version = None if found is None else toolkit_version(ctx, found[0])
    return [_driver(ctx, None if version is None else version[0])]


def _sourced(ctx: Context, path: str) -> CheckResult:
    env = ctx.host.env
    lib64 = f"{path.rstrip('/')}/lib64"
    on_path = any(
        entry.rstrip("/") in (lib64, str(Path(lib64).resolve()))
        for entry in env.get("LD_LIBRARY_PATH", "").split(":")
    )
    home = env.get("ASCEND_TOOLKIT_HOME")
    if home and on_path:
        evidence = f"ASCEND_TOOLKIT_HOME={home}, LD_LIBRARY_PATH has {lib64}"
        return CheckResult("cann.set_env", SECTION, "set_env.sh sourced", Status.OK, evidence)
    missing = [] if home else ["ASCEND_TOOLKIT_HOME is unset"]
    if not on_path:
        missing.append(f"LD_LIBRARY_PATH lacks {lib64}")
    return CheckResult(
        "cann.set_env",
        SECTION,
        "set_env.sh sourced",
        Status.FAIL,
        "; ".join(missing),
        f"source {set_env_script(ctx)} (in this shell and in the job's start-up)",
    )


def _pairing(ctx: Context, version: str | None, wanted: str | None) -> CheckResult:
    npu = ctx.version("torch-npu")
    title = "CANN for torch-npu"
    if npu is None:
        return CheckResult(
            "cann.pairing", SECTION, title, Status.SKIP, "torch-npu is not installed"
        )
    if wanted is None:
        return CheckResult(
            "cann.pairing", SECTION, title, Status.UNKNOWN,
            f"the data names no CANN release for torch-npu {npu}",
            "check torch-npu's release notes for its CANN release",
        )  # fmt: skip
    if version is None:
        return CheckResult(
            "cann.pairing",
            SECTION,
            title,
            Status.UNKNOWN,
            f"torch-npu {npu} is built for CANN {wanted}; the toolkit's version is unknown",
        )
    if version == wanted:
        return CheckResult(
            "cann.pairing", SECTION, title, Status.OK, f"torch-npu {npu} is built for CANN {wanted}"
        )
    return CheckResult(
        "cann.pairing",
        SECTION,
        title,
        Status.WARN,
        f"torch-npu {npu} is built for CANN {wanted}, the toolkit is {version}",
        f"install CANN {wanted}, or the torch-npu release built for CANN {version}",
    )


def driver_version(ctx: Context) -> tuple[str, str] | None:
    ran = ctx.host.run(["npu-smi", "info"])
    if ran is not None and ran.returncode == 0:
        found = re.search(r"Version:\s*([0-9][0-9A-Za-z.]*)", ran.stdout)
        if found:
            return found.group(1), "npu-smi info"
    try:
        text = ctx.host.path(DRIVER_VERSION_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = _VERSION.search(text)
    return (found.group(1), DRIVER_VERSION_FILE) if found else None


def _driver(ctx: Context, cann: str | None) -> CheckResult:
    title = "NPU driver"
    found = driver_version(ctx)
    if found is None:
        return CheckResult(
            "cann.driver", SECTION, title, Status.FAIL,
            f"no npu-smi on PATH and no {DRIVER_VERSION_FILE}",
            "install the NPU driver and firmware (Ascend HDK) for this card, then reboot",
        )  # fmt: skip
    version, origin = found
    table = ctx.options.driver_table if ctx.options.driver_table is not None else driver_table()
    row = table.get(cann) if cann is not None else None
    if row is None:
        return CheckResult(
            "cann.driver", SECTION, title, Status.UNKNOWN,
            f"driver {version} ({origin}); no cited row pairs CANN {cann or '?'} with a driver",
            f"check Ascend's compatibility table for CANN {cann or '?'}",
        )  # fmt: skip
    minimum, source = row
    have, need = ascend_key(version), ascend_key(minimum)
    if have is None or need is None:
        return CheckResult(
            "cann.driver",
            SECTION,
            title,
            Status.UNKNOWN,
            f"driver {version} ({origin}): version not understood",
        )
    if have >= need:
        return CheckResult(
            "cann.driver",
            SECTION,
            title,
            Status.OK,
            f"driver {version} ({origin}) >= {minimum} for CANN {cann}",
        )
    return CheckResult(
        "cann.driver",
        SECTION,
        title,
        Status.FAIL,
        f"driver {version} ({origin}) is older than {minimum}, which CANN {cann} needs ({source})",
        f"upgrade the NPU driver and firmware to {minimum} or newer",
    )


CHECKS: tuple[Check, ...] = (toolkit_checks, driver_check)
