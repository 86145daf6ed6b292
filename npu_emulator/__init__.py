"""A CPU-backed emulator of an Ascend NPU host (torch + torch_npu) for testing migrations.

``install()`` turns the current process into an emulated host; ``emulation_env()`` gives
the environment that does the same for child processes; ``python -m npu_emulator
SCRIPT`` runs a script under emulation. See README.md in this folder for what is and is
not emulated. Importing this package does not import torch.
"""

from __future__ import annotations

from npu_emulator.environment import emulation_env
from npu_emulator.errors import NotEmulatedError
from npu_emulator.install import install, is_installed

__all__ = ["NotEmulatedError", "emulation_env", "install", "is_installed"]
