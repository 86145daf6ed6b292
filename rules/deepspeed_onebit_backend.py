"""DeepSpeed 1-bit optimizers and their NCCL compression backend."""

from __future__ import annotations

from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Finding, TextEdit
from migrator.formats.json_spans import JSONSpanError, line_col, spans

# DeepSpeed compares `optimizer.type` lower-cased (deepspeed/runtime/config.py).
_ONEBIT = frozenset({"onebitadam", "onebitlamb", "zerooneadam"})
_BACKEND_KEY = "comm_backend_name"


class DeepspeedOnebitBackend(TextRule):
    """Point DeepSpeed's 1-bit optimizers at the HCCL compression backend.

    What it does, in a DeepSpeed JSON config whose `optimizer.type` is `OneBitAdam`,
    `OneBitLamb` or `ZeroOneAdam`: `"comm_backend_name": "nccl"` -> `"hccl"` in place
    (every other byte kept); without a `comm_backend_name` it reports the line of the
    optimizer type, since DeepSpeed then uses `"nccl"`.

    Why: the 1-bit optimizers exchange compressed gradients through their own backend
    object, `deepspeed.runtime.comm.nccl.NcclBackend` by default, which needs CUDA;
    DeepSpeed ships `deepspeed.runtime.comm.hccl.HcclBackend` for Ascend, chosen by
    `comm_backend_name: "hccl"`. DeepSpeed picks its NPU accelerator and the hccl process
    group by itself, but not this setting.

    Not reported: `offload_optimizer` / `offload_param` (DeepSpeedCPUAdam): DeepSpeed has
    an NPU op builder for `cpu_adam` (`op_builder/npu/cpu_adam.py`), built on first use
    on the host. `"mpi"` and `"compressed"` backends are left alone.

    Example: `"params": {"lr": 1e-4, "comm_backend_name": "nccl"}` ->
    `"params": {"lr": 1e-4, "comm_backend_name": "hccl"}`.

    Safety: safe.
    """

    code = "NPU111"
    action = "host-setup"
    name = "deepspeed-onebit-backend"
    summary = (
        "DeepSpeed 1-bit optimizers: comm_backend_name 'nccl' to 'hccl' (reported when unset)."
    )
    trigger = Trigger(
        tokens=("OneBit", "onebit", "ZeroOne", "zeroone"), unit=Unit.FILE, files=("*.json",)
    )
    examples = (
        Example(
            '{"optimizer": {"type": "OneBitAdam", "params": {"comm_backend_name": "nccl"}}}\n',
            '{"optimizer": {"type": "OneBitAdam", "params": {"comm_backend_name": "hccl"}}}\n',
            "ds_config.json",
        ),
        Example(
            '{"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}}\n', None, "ds_config.json"
        ),
    )

    def check(self, text: str) -> list[Finding]:
        try:
            found = spans(text)
        except (JSONSpanError, ValueError):
            return []
        kind = found.get(("optimizer", "type"))
        if kind is None or not isinstance(kind.value, str) or kind.value.lower() not in _ONEBIT:
            return []
        backend = self.target.dist_backend
        setting = found.get(("optimizer", "params", _BACKEND_KEY))
        if setting is None:
            return [
                self.warning(
                    *line_col(text, kind.start),
                    f"{kind.value} compresses gradients through its NCCL backend by default",
                    f'add "{_BACKEND_KEY}": "{backend}" to the optimizer params '
                    "(deepspeed.runtime.comm.hccl)",
                )
            ]
        if setting.value != self.target.source_dist_backend:
            return []
        message = (
            f'{_BACKEND_KEY} "{setting.value}" -> "{backend}" ({kind.value}: DeepSpeed\'s '
            f"{backend.upper()} compression backend)"
        )
        edit = TextEdit(setting.start, setting.end, f'"{backend}"')
        return [self.change(*line_col(text, setting.start), message, edit)]
