"""ZeRO-2 and ZeRO-3 DeepSpeed configs for the NPU, and the accelerate configs that use them.

Why new files rather than edits of upstream's: upstream's ZeRO-3 JSON (`zero3.yaml`) says
`"bf16": {"enabled": "auto"}`. accelerate fills "auto" from its own mixed precision, which
is "no" here, so DeepSpeed runs the bf16 Cosmos backbone next to an fp32 action head and
ZeRO-3 stops on a dtype assertion. The generated JSONs enable bf16 outright and carry the
values tuned on Atlas 800T A2/A3 (bucket sizes 5e8, ZeRO-3 prefetch 5e8, persistence
threshold 1e6, live parameters and reuse distance 1e9, 16-bit weights gathered on save).
Gradient clipping is 1.0, as in upstream's ZeRO-2 JSON and the trainer's
`trainer.gradient_clipping`: under DeepSpeed, accelerate's `clip_grad_norm_` leaves
clipping to this key, which upstream's ZeRO-3 JSON leaves out.

The accelerate YAMLs name the JSON with `deepspeed_config_file` and have no
`mixed_precision` key: accelerate refuses one next to a DeepSpeed config file.
"""

from __future__ import annotations

from migrator.contract.profile import StepInput
from migrator.core.model import FileResult
from target_dit4dit.generated import Generated, template

CODE = "DIT090"
FOLDER = "DiT4DiT/config/deepseeds"
STAGES = (2, 3)


def deepspeed_json(stage: int) -> str:
    return f"{FOLDER}/npu_zero{stage}.json"


def accelerate_yaml(stage: int) -> str:
    return f"{FOLDER}/npu_zero{stage}.yaml"


def build(given: StepInput) -> list[Generated | FileResult]:
    del given
    items: list[Generated | FileResult] = []
    for stage in STAGES:
        items.append(
            Generated(
                deepspeed_json(stage),
                template(f"npu_zero{stage}.json"),
                CODE,
                f'DeepSpeed ZeRO-{stage} config for the NPU (bf16 enabled, not "auto")',
            )
        )
        items.append(
            Generated(
                accelerate_yaml(stage),
                template(f"npu_zero{stage}.yaml"),
                CODE,
                f"accelerate config for ZeRO-{stage} that points at {deepspeed_json(stage)}",
            )
        )
    return items
