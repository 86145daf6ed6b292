"""The dit4dit profile's steps: the files it generates, then the migration report.

They run after the rules, in this order; the report comes last so that it sees every
edit and every generated file. Codes DIT090-DIT099 are the steps' (the profile's rules
count up from DIT001):

| code   | file(s)                                                          |
|--------|------------------------------------------------------------------|
| DIT090 | DiT4DiT/config/deepseeds/npu_zero{2,3}.json and .yaml            |
| DIT091 | scripts/train_npu.sh                                             |
| DIT092 | DiT4DiT/config/robotwin/dit4dit_robotwin.yaml                    |
| DIT093 | requirements-npu.txt                                             |
| DIT094 | NPU_MIGRATION.md                                                 |
"""

from __future__ import annotations

from types import ModuleType

from migrator.contract.profile import Step
from target_dit4dit import deepspeed_configs, launch_script, requirements_npu, robotwin_config
from target_dit4dit.generated import GeneratedFiles
from target_dit4dit.migration_report import MigrationReport


def _generated(module: ModuleType, name: str, summary: str) -> GeneratedFiles:
    return GeneratedFiles(module.CODE, name, summary, module.build, module.__doc__ or "")


STEPS: tuple[Step, ...] = (
    _generated(
        deepspeed_configs,
        "deepspeed-configs",
        "Generate ZeRO-2/3 DeepSpeed and accelerate configs.",
    ),
    _generated(launch_script, "launch-script", "Generate a launch script for one Ascend node."),
    _generated(robotwin_config, "robotwin-config", "Generate the RoboTwin training config."),
    _generated(requirements_npu, "requirements-npu", "Generate requirements for an Ascend host."),
    MigrationReport(),
)
