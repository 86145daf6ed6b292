"""NVIDIA apex imports and calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class Apex(UnsupportedConstruct):
    """Report NVIDIA apex: imports of `apex` and every call into it, each with the torch
    replacement for its part of apex.

    What it reports: `from apex import amp`, `import apex`, and calls such as
    `amp.initialize(model, optimizer, opt_level="O1")`, `amp.scale_loss(loss, optimizer)`,
    `apex.optimizers.FusedAdam(...)`, `apex.normalization.FusedLayerNorm(...)` and
    `apex.parallel.DistributedDataParallel(...)`, by qualified name. Optional imports are
    not reported.

    Why: apex's fast paths are CUDA extensions built from source with nvcc; upstream apex
    has no Ascend support, so its import or its fused kernels fail on an Ascend host. Each
    part has a torch replacement that runs on the NPU:

    - `apex.amp` -> `torch.autocast("npu", dtype=torch.bfloat16)`, with
      `torch.amp.GradScaler("npu")` for fp16;
    - `apex.optimizers.FusedAdam` -> `torch.optim.AdamW(..., fused=True)` (torch-npu
      registers the fused kernel; FusedAdam's default `adam_w_mode=True` is AdamW);
    - `apex.normalization.FusedLayerNorm` / `FusedRMSNorm` -> `torch.nn.LayerNorm` /
      `torch.nn.RMSNorm`;
    - `apex.parallel.DistributedDataParallel` / `SyncBatchNorm` ->
      `torch.nn.parallel.DistributedDataParallel` / `torch.nn.SyncBatchNorm`.

    Ascend also publishes a patched apex (Ascend/apex, "apex for Ascend", built from source
    against torch-npu) that keeps `apex.amp` and some fused optimizers working; it is an
    option when rewriting is not.

    Example: `from apex.optimizers import FusedAdam` and `FusedAdam(params, lr=1e-4)` give
    two warnings, both suggesting `torch.optim.AdamW(..., fused=True)`.

    Safety: reports only, never rewrites (amp's opt levels and loss scaling do not map
    one-to-one).

    Caveats: a PyPI package that is also called `apex` (unrelated to NVIDIA's) is reported
    as well.
    """

    code = "NPU053"
    action = "replace-library"
    name = "apex"
    summary = "Report NVIDIA apex imports and calls, with the torch replacement for each part."
    trigger = Trigger(tokens=("apex",))
    modules = ("apex",)
    uses = ("apex",)
    message = "NVIDIA apex builds CUDA extensions and has no {DEVICE} support upstream"
    suggestion = "replace it with its torch counterpart, or use {apex_port}"
    suggestions: ClassVar[Mapping[str, str]] = {
        "apex.amp": (
            'use torch.autocast("{device}", dtype=torch.bfloat16), with '
            'torch.amp.GradScaler("{device}") for fp16, or {apex_port}'
        ),
        "apex.optimizers": (
            "use torch.optim.AdamW(..., fused=True) for FusedAdam, fused runs on the {DEVICE}; "
            "the torch.optim counterpart for the other fused optimizers"
        ),
        "apex.normalization": "use torch.nn.LayerNorm / torch.nn.RMSNorm",
        "apex.parallel": (
            "use torch.nn.parallel.DistributedDataParallel and torch.nn.SyncBatchNorm"
        ),
    }
    examples = (
        reported(
            "from apex.optimizers import FusedAdam\n"
            "optimizer = FusedAdam(model.parameters(), lr=1e-4)\n"
        ),
        reported(
            "from apex import amp\n"
            "model, optimizer = amp.initialize(model, optimizer, opt_level='O1')\n"
        ),
        Example("import torch\noptimizer = torch.optim.AdamW(params, lr=1e-4, fused=True)\n"),
        Example('print("apex amp disabled")\n'),
    )
