"""`migrate doctor`: check an Ascend host and a migrated project before the first run fails.

Every check reads the host through one seam, `host.Host` (commands on its PATH, files under
its root, its environment variables, the interpreter to probe), so tests build fake hosts.
The doctor only reads: it never installs or changes anything, never touches the network,
never imports the project's code, and never imports torch into the tool. Python-stack
facts come from `INTERPRETER -c "..."` subprocesses that import installed packages only.

Sections, one module each: `python_stack`, `cann`, `devices`, `project`, `offline`;
`checks.run_checks` runs them in order. Nothing is imported here: `migrate --help` loads
`migrator.doctor.command` only, and the checks (which import the engine) load when the
doctor runs.
"""
