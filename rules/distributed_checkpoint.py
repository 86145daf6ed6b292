"""Saves through `torch.distributed.checkpoint`."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported

_DCP = "torch.distributed.checkpoint"


class DistributedCheckpoint(UnsupportedConstruct):
    """Report saves through `torch.distributed.checkpoint` (DCP): `dcp.save(...)`,
    `dcp.async_save(...)`, `dcp.save_state_dict(...)`.

    What it reports: each such call, by qualified name (`import
    torch.distributed.checkpoint as dcp` included). Loads, `torch.save` and
    `accelerator.save_state` are left alone.

    Why: in the hand ports this project measures itself against, these saves had to be
    changed. DCP plans a save with collectives in the default process group (every rank's
    plan gathered, the metadata broadcast) before each rank writes its shard. On an Ascend
    host that group is "hccl", which torch_npu registers for the "npu" device only, so any
    of those collectives that runs on CPU tensors fails there; which ones do has not been
    checked against the wheels, so a person has to try a save and a resume on the host.

    Example: `dcp.save(state_dict, checkpoint_id=path)` is reported.

    Safety: reports only. Suggested change: create the process group with both backends
    (`init_process_group("cpu:gloo,npu:hccl")`), or move the state dict to the CPU and
    `torch.save` it on rank 0 (for models that fit one host's memory); check a save and a
    resume on the host.

    Caveats: the rule cannot see whether the saved tensors are on the device; a state dict
    moved to the CPU first still goes through DCP's collectives.
    """

    code = "NPU073"
    action = "port-code"
    name = "distributed-checkpoint"
    summary = (
        "Report torch.distributed.checkpoint saves: planned with collectives (hccl: NPU only)."
    )
    trigger = Trigger(tokens=("checkpoint",), local=True)
    uses = (f"{_DCP}.save", f"{_DCP}.async_save", f"{_DCP}.save_state_dict")
    message = (
        "DCP plans saves with collectives in the default group, and hccl takes {DEVICE} "
        "tensors only"
    )
    suggestion = (
        'init the group with "cpu:gloo,{device}:hccl", or torch.save a CPU state dict on rank 0; '
        "check a save and a resume on the host"
    )
    examples = (
        reported(
            "import torch.distributed.checkpoint as dcp\n"
            "dcp.save({'model': model.state_dict()}, checkpoint_id=path)\n"
        ),
        Example("import torch\ntorch.save(model.state_dict(), path)\n"),
    )
