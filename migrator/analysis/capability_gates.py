"""CUDA capability gates: the `torch.cuda` APIs that answer "may this code run here?".

NPU018 (cuda-capability-gate) owns every site of these names; NPU012 (torch-cuda-api),
which moves other `torch.cuda.<api>` to `torch.npu.<api>`, leaves them alone. Claimed in
one place so the two rules cannot both edit a site: `torch.npu.get_device_capability()`
exists but returns None, so the plain rename NPU012 does for other APIs would turn
`get_device_capability() >= (8, 0)` into a `TypeError`, and `torch.cuda.nccl` has no
`torch.npu` counterpart at all.
"""

from __future__ import annotations

# Names directly under `torch.cuda`.
CAPABILITY_APIS = frozenset({"get_device_capability", "nccl"})
