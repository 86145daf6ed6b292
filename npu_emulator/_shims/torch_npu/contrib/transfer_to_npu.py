"""torch_npu.contrib.transfer_to_npu on the npu-migrator emulator.

Importing it patches PyTorch so that CUDA calls reach the npu, as the real module does;
see npu_emulator/transfer.py for what is and is not rewritten.
"""

from __future__ import annotations

from npu_emulator import stand_ins

stand_ins.apply_transfer_to_npu()
