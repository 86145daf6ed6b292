"""Hugging Face Trainer flags on launch-script command lines."""

from __future__ import annotations

from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import reported
from migrator.core.model import Finding, TextEdit
from migrator.formats.shell import SCRIPT_PATTERNS, Word, line_starts, parse, position, unquote

_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})
_FUSED = "adamw_torch_fused"
_UNFUSED = "adamw_torch"


def _flag(words: list[Word], index: int) -> tuple[str, str | None, Word | None]:
    """(`--name`, its value or None, the word holding the value) for `--name=v`/`--name v`."""
    text = unquote(words[index].text)
    name, equals, value = text.partition("=")
    if equals:
        return name, value, words[index]
    following = unquote(words[index + 1].text) if index + 1 < len(words) else ""
    if following and not following.startswith("-"):
        return name, following, words[index + 1]
    return name, None, None


class TrainerLaunchFlag(TextRule):
    """Turn off `--tf32` in launch scripts, unfuse the optimizer fp16 cannot step, and
    report apex backends.

    What it does, on each command of a shell or Slurm script that passes Hugging Face
    `TrainingArguments` flags (`python train.py`, `torchrun`, `accelerate launch`,
    `deepspeed`, ...):

    - `--tf32 True` / `--tf32=true` / a bare `--tf32` -> `--tf32 False` (the value's quoting
      kept), saying that the NPU's counterpart is HF32;
    - `--optim adamw_torch_fused` on a command that also passes `--fp16` (true) ->
      `--optim adamw_torch`, flagged for review (or keep it fused and pass `--bf16 True`);
    - reports `--fp16_backend apex` / `--half_precision_backend apex` and
      `--optim adamw_apex_fused`.

    Why: transformers raises "--tf32 requires Ampere or a newer GPU arch" when tf32 is on
    and the device is not a CUDA one. With fp16 on an NPU, accelerate hands the Trainer
    torch_npu's GradScaler, whose `step()` raises `TypeError` with fused optimizers. apex
    is a CUDA build (Ascend keeps a port). The same flags in Python are NPU019's.

    Example: `torchrun train.py --bf16 True --tf32 True` -> `torchrun train.py --bf16 True
    --tf32 False`.

    Left alone: `--tf32 False`, flags given through variables (`--tf32 $TF32`), text in
    `echo` strings, `--bf16` (supported on Atlas A2/A3).

    Safety: safe; the optimizer change needs review.
    """

    code = "NPU110"
    action = "replace-library"
    name = "trainer-launch-flag"
    summary = "Launch scripts: --tf32 off, --fp16 with fused AdamW unfused, apex backends reported."
    trigger = Trigger(
        tokens=("--tf32", "adamw_torch_fused", "apex"), unit=Unit.FILE, files=SCRIPT_PATTERNS
    )
    examples = (
        Example(
            "torchrun --nproc_per_node 8 train.py --bf16 True --tf32 True\n",
            "torchrun --nproc_per_node 8 train.py --bf16 True --tf32 False\n",
            "run.sh",
        ),
        reported("python train.py --fp16_backend apex\n", "run.sh"),
        Example('echo "use --tf32 True on A100"\npython train.py --tf32 $TF32\n', None, "run.sh"),
    )

    def check(self, text: str) -> list[Finding]:
        self._starts = line_starts(text)
        found: list[Finding] = []
        for command in parse(text).commands:
            _, name, arguments = command.parts()
            if name is None or unquote(name.text) == "echo":
                continue
            found.extend(self._command(arguments))
        return found

    def _at(self, word: Word) -> tuple[int, int]:
        return position(self._starts, word.start)

    def _command(self, words: list[Word]) -> list[Finding]:
        edits: list[Finding] = []
        flags: dict[str, tuple[int, str | None, Word | None]] = {}
        for index, word in enumerate(words):
            if word.text.startswith("--"):
                name, value, holder = _flag(words, index)
                flags[name] = (index, value, holder)
        device = self.target.device_type
        tf32 = flags.get("--tf32")
        if tf32 is not None:
            index, value, holder = tf32
            word = words[index]
            message = (
                f"--tf32 -> --tf32 False: transformers raises '--tf32 requires Ampere or a newer "
                f"GPU arch' off CUDA; the {device.upper()}'s counterpart is HF32 "
                f"(torch.{device}.matmul.allow_hf32 = True)"
            )
            on = value is None or (
                value.lower() in _TRUE and holder is not None and "$" not in holder.text
            )
            if on:
                if value is None or holder is None:
                    edit = TextEdit(word.end, word.end, " False")
                else:
                    edit = _replace_value(holder, value, "False")
                edits.append(self.change(*self._at(word), message, edit))
        for option in ("--fp16_backend", "--half_precision_backend"):
            found = flags.get(option)
            if found is not None and found[1] == "apex":
                edits.append(
                    self.warning(
                        *self._at(words[found[0]]),
                        f"{option} apex needs NVIDIA apex, a CUDA build",
                        f"use {option} auto (torch.amp), or install {self._apex()}",
                    )
                )
        optim = flags.get("--optim")
        if optim is None or optim[2] is None or optim[1] is None:
            return edits
        index, value, holder = optim
        if value == "adamw_apex_fused":
            edits.append(
                self.warning(
                    *self._at(words[index]),
                    "--optim adamw_apex_fused needs NVIDIA apex, a CUDA build",
                    f"use --optim {_UNFUSED} (or {_FUSED} with --bf16 True), "
                    f"or install {self._apex()}",
                )
            )
        fp16 = flags.get("--fp16")
        fp16_on = fp16 is not None and (fp16[1] is None or fp16[1].lower() not in _FALSE)
        if value == _FUSED and fp16_on and holder is not None:
            message = (
                f"--optim {_FUSED} -> {_UNFUSED}: with --fp16 on the {device.upper()}, accelerate "
                f"hands the Trainer {self.target.runtime_module}'s GradScaler, whose step() raises "
                "TypeError with fused optimizers; or keep it fused and pass --bf16 True"
            )
            edit = _replace_value(holder, value, _UNFUSED)
            edits.append(self.change(*self._at(words[index]), message, edit, review=True))
        return edits

    def _apex(self) -> str:
        return self.target.equivalents.get("apex_port", "a port of apex for the target")


def _replace_value(word: Word, value: str, new: str) -> TextEdit:
    """Replace the last occurrence of `value` in `word` (after `=` if any), quotes kept."""
    offset = word.text.rfind(value)
    start = word.start + offset
    return TextEdit(start, start + len(value), new)
