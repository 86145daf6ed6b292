"""The DiT4DiT profile: rules, generated files and checks that only make sense for DiT4DiT.

DiT4DiT (Mondo-Robotics/DiT4DiT) trains a Cosmos-Predict2.5 video backbone with a
flow-matching action head through accelerate + DeepSpeed. The profile runs every generic
rule plus the rules in this package, then the steps in `steps.py` (generated configs,
launch script, requirements, migration report).
"""

from __future__ import annotations

from pathlib import Path

from migrator.contract.profile import Profile
from target_dit4dit.smoke.cli import smoke_command
from target_dit4dit.steps import STEPS

# Where upstream keeps the trainer and the framework module; the profile's rules target them.
TRAINER = "DiT4DiT/training/train.py"
FRAMEWORK = "DiT4DiT/model/framework/DiT4DiT.py"
MARKERS = (TRAINER, FRAMEWORK)


def detect(root: Path) -> bool:
    """A DiT4DiT checkout: its trainer and its framework module are where upstream has them."""
    return all((root / marker).is_file() for marker in MARKERS)


PROFILES = (
    Profile(
        name="dit4dit",
        summary="DiT4DiT (accelerate + DeepSpeed ZeRO-2/3) on one Ascend node.",
        packages=("target_dit4dit",),
        detect=detect,
        steps=STEPS,
        # DiT4DiT's hand port applies mx_driving's default patcher, mmcv or not.
        patcher="mx-driving",
        # Its hand port sets up training/train.py only; the serving and evaluation
        # scripts are reported.
        device_entries=False,
        # No config of DiT4DiT names a CUDA device (its device choice lives in code and
        # the accelerate/DeepSpeed configs), and its migrated tree is pinned byte for byte:
        # config-device-value would only make more files candidates. The profile writes
        # the Ascend host's requirements to requirements-npu.txt (DIT093), so
        # requirements.txt stays the CUDA lock it is: cuda-requirements (NPU102) would
        # leave it neither that nor an NPU one (CUDA pins gone, torch moved).
        leaves_out=("NPU120", "NPU102"),
    ),
)

# `migrate smoke PATH`: train a migrated checkout for a few steps (see smoke/cli.py).
COMMANDS = (smoke_command,)
