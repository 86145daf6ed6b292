"""A ZeRO-3 DeepSpeed config that leaves bf16 to accelerate's "auto"."""

from __future__ import annotations

import json

from migrator.contract.expected import not_found
from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Finding, TextEdit
from migrator.formats.json_spans import JSONSpanError, Span, line_col, spans

CONFIGS = "DiT4DiT/config/deepseeds/*"
_ENABLED = (("bf16", "enabled"), ("bfloat16", "enabled"))


class Zero3Bf16(TextRule):
    """Turn bf16 on explicitly in DiT4DiT's ZeRO-3 DeepSpeed config: `"enabled": true`.

    What it does: in a DeepSpeed config under `DiT4DiT/config/deepseeds/` (any file name:
    upstream's is `zero3.yaml`, but its content is JSON, which is what DeepSpeed reads) whose
    `zero_optimization.stage` is 3, `"bf16": {"enabled": "auto"}` becomes
    `"bf16": {"enabled": true}`. Only the characters of that one value change; indentation,
    key order and every other byte stay.

    Why: the configs are passed as `deepspeed_config_file`, and accelerate then resolves
    `"auto"` from its own `mixed_precision`, which such a launch config may not set (see
    DIT011): bf16 resolves to false. The Cosmos backbone is loaded in bf16 while the action
    head stays fp32, and ZeRO-3, which flattens parameters of one dtype, fails on the mix
    (the "dtype" assertion blamed on the VAE and text encoder; they load in bf16 too). With
    bf16 on, DeepSpeed runs the whole model in bf16 with fp32 master weights, as the ZeRO-2
    config (`ds_config.yaml`, bf16 true) already does.

    Example: `"bf16": {"enabled": "auto"}` -> `"bf16": {"enabled": true}` when
    `"zero_optimization": {"stage": 3, ...}`.

    Safety: safe: the same precision recipe as the ZeRO-2 config.

    Caveats: a ZeRO-3 config without `bf16.enabled` is reported, not edited (add
    `"bf16": {"enabled": true}` by hand); so is `"enabled": false` (an explicit choice) and
    `fp16.enabled: true` (DeepSpeed refuses fp16 and bf16 together). Files that are not JSON
    (accelerate's YAML configs) and configs of other ZeRO stages are left alone.
    """

    code = "DIT010"
    action = "host-setup"
    name = "zero3-bf16"
    summary = 'ZeRO-3 DeepSpeed JSON: bf16 "enabled": "auto" -> true (auto resolves to false here).'
    trigger = Trigger(
        tokens=("zero_optimization",),
        unit=Unit.FILE,
        files=("*.json", "*.yaml", "*.yml"),
        paths=(CONFIGS,),
    )
    examples = (
        Example(
            '{\n  "bf16": {"enabled": "auto"},\n  "zero_optimization": {"stage": 3}\n}\n',
            '{\n  "bf16": {"enabled": true},\n  "zero_optimization": {"stage": 3}\n}\n',
            path="DiT4DiT/config/deepseeds/zero3.json",
        ),
        Example(
            '{\n  "bf16": {"enabled": "auto"},\n  "zero_optimization": {"stage": 2}\n}\n',
            None,
            path="DiT4DiT/config/deepseeds/zero2.json",
        ),
    )

    def check(self, text: str) -> list[Finding]:
        try:
            found = spans(text)
        except JSONSpanError:
            return []
        stage = found.get(("zero_optimization", "stage"))
        if stage is None or stage.value not in (3, "3"):
            return []
        key = next((path for path in _ENABLED if path in found), None)
        if key is None:
            line, col = line_col(text, stage.start)
            warning = self.warning(
                line,
                col,
                not_found("bf16.enabled", f"{self.ctx.path} (a ZeRO-3 config)"),
                'add "bf16": {"enabled": true}: without it the fp32 action head next to the '
                "bf16 backbone fails ZeRO-3's dtype check",
            )
            return [warning]
        enabled = found[key]
        setting = ".".join(str(part) for part in key)
        if enabled.value is True:
            return []
        line, col = line_col(text, enabled.start)
        raw = text[enabled.start : enabled.end]
        if enabled.value != "auto":
            warning = self.warning(
                line,
                col,
                f"ZeRO-3 config sets {setting} to {raw}: the fp32 action head next to the "
                "bf16 backbone fails ZeRO-3's dtype check",
                "set it to true unless the whole model really trains in another precision",
            )
            return [warning]
        if _fp16_on(found):
            warning = self.warning(
                line,
                col,
                f'{setting} is "auto" while fp16.enabled is true; DeepSpeed refuses both',
                "choose one: bf16 matches the bf16 backbone",
            )
            return [warning]
        message = (
            f"{setting} {raw} -> true: next to a deepspeed_config_file accelerate resolves "
            '"auto" to false, leaving the fp32 action head beside the bf16 backbone (the ZeRO-3 '
            "dtype assertion)"
        )
        return [
            self.change(line, col, message, TextEdit(enabled.start, enabled.end, json.dumps(True)))
        ]


def _fp16_on(found: dict[tuple[str | int, ...], Span]) -> bool:
    fp16 = found.get(("fp16", "enabled"))
    return fp16 is not None and fp16.value is True
