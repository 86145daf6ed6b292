"""Hugging Face `TrainingArguments(...)` flags that fail or misbehave on the NPU."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.ast_lines import passes_keyword
from migrator.analysis.cst_helpers import find_arg, string_value, with_string_value
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import Trigger

# TrainingArguments and the trainer configs that subclass it.
_ARGUMENT_CLASSES = frozenset(
    {
        "transformers.TrainingArguments",
        "transformers.Seq2SeqTrainingArguments",
        "transformers.training_args.TrainingArguments",
        "transformers.training_args_seq2seq.Seq2SeqTrainingArguments",
        *(
            f"trl.{name}"
            for name in (
                "SFTConfig", "DPOConfig", "GRPOConfig", "KTOConfig", "ORPOConfig", "CPOConfig",
                "RewardConfig", "PPOConfig", "RLOOConfig",
            )
        ),
    }
)  # fmt: skip
_APEX_BACKEND_KEYWORDS = ("fp16_backend", "half_precision_backend")
_FUSED = "adamw_torch_fused"
_UNFUSED = "adamw_torch"


def _is_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


class TrainingArgumentsFlag(PythonRule):
    """Turn off `tf32=True` in `TrainingArguments`, unfuse the optimizer fp16 cannot step,
    and report apex backends.

    What it does, in calls of `transformers.TrainingArguments`, `Seq2SeqTrainingArguments`
    and trl's configs that subclass them (`SFTConfig`, `DPOConfig`, `GRPOConfig`, ...):

    - `tf32=True` -> `tf32=False`, saying that the NPU's counterpart is HF32
      (`torch.npu.matmul.allow_hf32 = True`, off by default);
    - `optim="adamw_torch_fused"` together with `fp16=True` -> `optim="adamw_torch"`,
      flagged for review (or keep the fused optimizer and train in bf16 instead);
    - reports `fp16_backend="apex"` / `half_precision_backend="apex"` and
      `optim="adamw_apex_fused"` (apex is a CUDA build; Ascend keeps a port of it).

    Why: transformers raises "--tf32 requires Ampere or a newer GPU arch" when `tf32=True`
    and the device is not a CUDA one, so the script stops before training. On an NPU
    accelerate hands the Trainer torch_npu's GradScaler for fp16, whose `step()` passes
    `grad_scaler=` to optimizers that declare fused-AMP support; torch's fused AdamW
    takes no such argument: `TypeError` at the first step.

    `attn_implementation="flash_attention_2"` is left alone: from transformers 4.51.0
    (`transformers/integrations/npu_flash_attention.py`) it runs on the NPU through
    `torch_npu.npu_fusion_attention`, and from 4.56.0 its check no longer asks for the
    `flash-attn` package there (4.54-4.55 raised; huggingface/transformers#39844).

    Example: `TrainingArguments(output_dir="out", tf32=True)` ->
    `TrainingArguments(output_dir="out", tf32=False)`.

    Left alone: flags given as variables or `**kwargs`, `bf16=True` (supported on Atlas
    A2/A3), other classes with a `tf32` keyword.

    Safety: safe; the optimizer change needs review.
    """

    code = "NPU019"
    action = "replace-library"
    name = "training-arguments-flag"
    summary = (
        "TrainingArguments: tf32=True off, fp16 + fused AdamW unfused, apex backends reported."
    )
    # It reads only these keywords of an arguments class's call.
    trigger = Trigger(
        tokens=("tf32", "adamw_torch_fused", "apex"),
        statement_gate=passes_keyword("tf32", "optim", *_APEX_BACKEND_KEYWORDS),
        local=True,
    )
    examples = (
        Example(
            "from transformers import TrainingArguments\n"
            'args = TrainingArguments(output_dir="out", tf32=True)\n',
            "from transformers import TrainingArguments\n"
            'args = TrainingArguments(output_dir="out", tf32=False)\n',
        ),
        Example(
            "from transformers import TrainingArguments\n"
            'args = TrainingArguments("out", bf16=True, optim="adamw_torch_fused")\n',
            None,
        ),
        Example("def build(Config):\n    return Config(tf32=True)\n", None),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        # id of an original argument value -> (replacement, message, review).
        self._rewrites: dict[int, tuple[cst.BaseExpression, str, bool]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualname(node.func) not in _ARGUMENT_CLASSES:
            return
        tf32 = find_arg(node, None, "tf32")
        if tf32 is not None and _is_true(tf32.value):
            message = (
                f"tf32=True -> tf32=False: transformers raises '--tf32 requires Ampere or a "
                f"newer GPU arch' off CUDA; the {self.target.device_type.upper()}'s counterpart "
                f"is HF32 (torch.{self.target.device_type}.matmul.allow_hf32 = True)"
            )
            self._rewrites[id(tf32.value)] = (cst.Name("False"), message, False)
        for keyword in _APEX_BACKEND_KEYWORDS:
            backend = find_arg(node, None, keyword)
            if backend is not None and string_value(backend.value) == "apex":
                self.warn(
                    backend,
                    f'{keyword}="apex" needs NVIDIA apex, a CUDA build',
                    f'use "auto" (torch.amp), or install {self._apex()}',
                )
        optim = find_arg(node, None, "optim")
        name = string_value(optim.value) if optim is not None else None
        if optim is None or name is None:
            return
        if name == "adamw_apex_fused":
            self.warn(
                optim,
                'optim="adamw_apex_fused" needs NVIDIA apex, a CUDA build',
                f'use optim="{_UNFUSED}" (or "{_FUSED}" with bf16), or install {self._apex()}',
            )
        fp16 = find_arg(node, None, "fp16")
        if name == _FUSED and fp16 is not None and _is_true(fp16.value):
            assert isinstance(optim.value, cst.SimpleString)
            message = (
                f'optim="{_FUSED}" -> "{_UNFUSED}": with fp16 on the '
                f"{self.target.device_type.upper()}, accelerate hands the Trainer "
                f"{self.target.runtime_module}'s GradScaler, whose step() raises TypeError "
                "with fused optimizers; or keep it fused and train with bf16=True"
            )
            self._rewrites[id(optim.value)] = (
                with_string_value(optim.value, _UNFUSED),
                message,
                True,
            )

    def _apex(self) -> str:
        return self.target.equivalents.get("apex_port", "a port of apex for the target")

    def leave_Arg(self, original_node: cst.Arg, updated_node: cst.Arg) -> cst.Arg:
        found = self._rewrites.pop(id(original_node.value), None)
        if found is None:
            return updated_node
        replacement, message, review = found
        new_value = self.edit(
            original_node.value, updated_node.value, replacement, message, review=review
        )
        return updated_node.with_changes(value=new_value)
