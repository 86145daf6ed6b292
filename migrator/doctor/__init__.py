"""`migrate doctor`: check an Ascend host and a migrated project before the first run fails.

Every check reads the host through one seam, `Host` (commands on its PATH, files under its
root, its environment variables, the interpreter to probe), so tests build fake hosts.
The doctor only reads: it never installs or changes anything, never touches the network,
never imports the project's code, and never imports torch into the tool. Python-stack
facts come from `INTERPRETER -c "..."` subprocesses that import installed packages only.

Sections, one module each: `python_stack`, `cann`, `devices`, `project`, `offline`.
"""

from __future__ import annotations

from migrator.doctor.checks import run_checks
from migrator.doctor.context import Options
from migrator.doctor.host import Host
from migrator.doctor.model import Finding, Report, Status

__all__ = ["Finding", "Host", "Options", "Report", "Status", "run_checks"]
