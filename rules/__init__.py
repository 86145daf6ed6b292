"""Generic CUDA -> NPU rules, one rule per module.

Code policy. Codes are a public interface: users write them in `# migrate: ignore[...]`
comments, in `--select` / `--ignore` and in `[tool.migrate]`. So:

- A code is never reused, even when its rule is removed.
- Every code a report can show is a registered item with a docstring (a rule, or a
  profile step such as DIT090), so `--explain`, `--select`, `--ignore` and `--list-rules`
  know it.
- A rule whose meaning changes keeps its code only if every old suppression and selection
  still means the right thing. Otherwise it gets a new code, and the old code becomes an
  alias of the new one in its package's `ALIASES` (old -> new). Everywhere a user writes
  a code the old one keeps working and warns, naming the new code: `--select OLD` /
  `--ignore OLD` and `select` / `ignore` in `[tool.migrate]` act on the new code; a
  `# migrate: ignore[OLD]` comment suppresses the new code and is reported as a warning
  under it ("OLD is now NEW"); `--explain OLD` explains the new one. Only a whole code is
  an alias, never a prefix. Dropping an alias is a change CHANGELOG.md records; its old
  code is still never reused.
- CHANGELOG.md records every code added, retired or aliased.

Ranges:

| range          | meaning                                                              |
|----------------|----------------------------------------------------------------------|
| NPU001-NPU029  | Python rewrites of device, precision and API constructs               |
| NPU030-NPU049  | entry-point set-up (torch_npu, transfer_to_npu, mx_driving patcher)   |
| NPU050-NPU089  | Python constructs that cannot be migrated: warnings, never rewrites   |
| NPU090-NPU099  | suggestions: optional NPU tuning hand ports add, notes, never edits   |
| NPU100-NPU149  | shell scripts, requirements files and other non-Python files          |
| DIT001-DIT099  | the DiT4DiT profile (package `target_dit4dit`)                        |

Order: rules run by (priority, code). Priorities say what a rule does to lines, so that
reports keep the file's own line numbers and later rules see settled code:

| priority | rules that                                                          |
|----------|---------------------------------------------------------------------|
| 100      | edit within lines (the default)                                     |
| 700      | move whole statements                                               |
| 800      | insert whole lines inside functions                                 |
| 900      | insert module-level set-up (entry-point-setup)                      |

Within NPU050-NPU089 one code names one CUDA-only construct (a package, an API family, a
file type), so a project that knowingly keeps one can `--ignore` exactly that code. These
rules never edit; most build on `migrator.contract.unsupported`, and NPU056 (`.cu`/`.cuh`
files) is the one text rule among them.

NPU090-NPU099 are suggestions, not problems: code that runs on the NPU as it is, where hand
ports added an NPU run-time setting or a fused kernel. Their messages start with
"suggestion:" and they never edit; a report or a CI gate that counts what a user must fix
leaves out this range, and `--ignore NPU09` drops all of them. (Until findings carry a
severity, this code range is what marks them.)

Within NPU100-NPU149 codes are given in the order rules are added; a rule's trigger's
`files` say which files it reads (shell and Slurm scripts, requirements and constraints files). Each
rule keeps every byte it does not mean to change (line endings, comments, quoting). A
rule that both rewrites and warns (NPU100, NPU102, NPU110, NPU111, NPU114) rewrites only
what maps one-to-one and warns about the rest; a rule that cannot know the right value
(NPU101: a cluster's resource names; NPU112: a host's Ascend base image) only warns.
Dependency files share one policy (`migrator.analysis.dependencies`): NPU102
requirements files, NPU114 `pyproject.toml`, NPU115 `setup.cfg`, NPU113 conda
environments, and NPU082 (`setup.py`, Python) among the warnings.

A rule's safety is "safe" when its edit keeps the program's meaning on the NPU, and
"needs review" when a person should confirm it (an individual edit can also be flagged).
"""

from __future__ import annotations

# Retired code -> the code that replaced it (see the code policy above). None yet.
ALIASES: dict[str, str] = {}

# The generic profile's steps (NPU_MIGRATION.md), run after the rules; see rules/steps.
from rules.steps import STEPS  # noqa: E402

__all__ = ["ALIASES", "STEPS"]
