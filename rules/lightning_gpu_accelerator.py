"""Lightning `Trainer(accelerator="gpu", strategy="ddp")`: CUDA picked by name."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.ast_lines import passes_keyword
from migrator.analysis.cst_helpers import find_arg, string_value
from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import TokenPattern, Trigger
from migrator.contract.unsupported import reported
from migrator.core.model import FixAvailability

_TRAINERS = frozenset(
    {
        f"{package}.{name}"
        for package in ("lightning", "lightning.pytorch", "pytorch_lightning")
        for name in ("Trainer", "trainer.Trainer", "trainer.trainer.Trainer")
    }
    | {"lightning.Fabric", "lightning.fabric.Fabric", "lightning_fabric.Fabric"}
)
_GPU = frozenset({"gpu", "cuda"})
# Strategy names whose process group Lightning sets up with nccl on CUDA, gloo elsewhere.
_PROCESS_GROUP_STRATEGIES = ("ddp", "fsdp")


class LightningGpuAccelerator(PythonRule):
    """Report Lightning `Trainer` / `Fabric` calls that pick CUDA by name.

    What it reports: `accelerator="gpu"` or `"cuda"`, and a `strategy` string of the
    `ddp` / `fsdp` families (`"ddp"`, `"ddp_find_unused_parameters_true"`, `"fsdp"`), in
    calls of `lightning.Trainer`, `pytorch_lightning.Trainer` and `lightning.Fabric`, with
    the change a person must make. Nothing is rewritten.

    Why: Lightning has no built-in NPU accelerator. `"gpu"` resolves to CUDA (or MPS) and
    fails without it; `"auto"` falls back to the CPU. A DDP or FSDP strategy named by
    string sets its process group up with nccl for CUDA devices and gloo for others, so
    on the NPU it runs gloo on CPU tensors or fails. The change is code: an `Accelerator`
    subclass for the NPU (`setup_device` calls `torch.npu.set_device`,
    `get_parallel_devices` returns `torch.device("npu", i)`, `is_available` asks
    `torch.npu.is_available()`), passed as `accelerator=`, and the strategy as an object:
    `DDPStrategy(accelerator=..., process_group_backend="hccl")`.

    Example: `Trainer(accelerator="gpu", devices=8, strategy="ddp")` is reported twice.

    Left alone: `accelerator="cpu"`/`"auto"`, strategy objects (NPU016 moves their
    `process_group_backend="nccl"`), other classes with these keywords.

    Safety: reports only.
    """

    code = "NPU081"
    action = "port-code"
    fix_availability = FixAvailability.NEVER
    name = "lightning-gpu-accelerator"
    summary = (
        "Report Lightning Trainer/Fabric accelerator='gpu' and strategy='ddp' (no NPU accelerator)."
    )
    trigger = Trigger(
        tokens=("accelerator", "strategy"),
        # Every name it reports (`_TRAINERS`) is bound by an import that says "lightning".
        needs=(TokenPattern("lightning", "lightning"),),
        statement_gate=passes_keyword("accelerator", "strategy"),
        local=True,
    )
    examples = (
        reported(
            "import lightning as L\n"
            'trainer = L.Trainer(accelerator="gpu", devices=8, strategy="ddp")\n'
        ),
        Example('import lightning as L\ntrainer = L.Trainer(accelerator="cpu")\n', None),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualname(node.func) not in _TRAINERS:
            return
        device = self.target.device_type
        accelerator = find_arg(node, None, "accelerator")
        if accelerator is not None and string_value(accelerator.value) in _GPU:
            self.warn(
                accelerator,
                f"accelerator={string_value(accelerator.value)!r} picks CUDA; Lightning has no "
                f"built-in {device.upper()} accelerator",
                f"pass an Accelerator subclass for the {device.upper()} (setup_device: "
                f"torch.{device}.set_device; get_parallel_devices: torch.device('{device}', i)) "
                "as accelerator=",
            )
        strategy = find_arg(node, None, "strategy")
        name = string_value(strategy.value) if strategy is not None else None
        if strategy is not None and name is not None and name.startswith(_PROCESS_GROUP_STRATEGIES):
            backend = self.target.dist_backend
            kind = "FSDPStrategy" if name.startswith("fsdp") else "DDPStrategy"
            self.warn(
                strategy,
                f"strategy={name!r} sets its process group up with nccl on CUDA and gloo "
                f"elsewhere, not {backend}",
                f'pass strategy={kind}(process_group_backend="{backend}") (and the '
                f"{device.upper()} accelerator)",
            )
