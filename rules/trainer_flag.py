"""Trainer flags in launch scripts that hand ports had to change on the NPU."""

from __future__ import annotations

from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.contract.unsupported import fill, reported
from migrator.core.model import Finding, FixAvailability
from migrator.formats.shell import SCRIPT_PATTERNS, line_starts, parse, position, unquote

_LOGGERS = frozenset({"echo", "printf"})
_OFF = frozenset({"false", "0", "no", "none", "off", "eager", "sdpa"})
_FLASH_FLAGS = frozenset(
    {"--flash_attn", "--use_flash_attn", "--flash_attention", "--use_flash_attention",
     "--use_flash_attention_2", "--flash-attn", "--use-flash-attn"}
)  # fmt: skip
_ATTENTION_FLAGS = frozenset({"--attn_implementation", "--attn-implementation"})
_BF16_FLAGS = frozenset({"--bf16", "--bf16_full_eval"})
_LIGER_FLAGS = frozenset({"--use_liger_kernel", "--use-liger-kernel"})

_FLASH = (
    "flash-attn has no {DEVICE} build, so this flag fails or is ignored on the host",
    "turn it off (False) and let the model use SDPA (--attn_implementation sdpa)",
)
_ATTENTION = (_FLASH[0], "use --attn_implementation sdpa (or eager)")
_BF16 = (
    "bf16 training needs an {DEVICE} with bf16 support (Atlas A2/A3 have it)",
    "check torch.{device}.is_bf16_supported() on the host; without it use --fp16 True",
)
_LIGER = (
    "Liger Kernel is Triton kernels for CUDA GPUs; the triton wheel has no {DEVICE} backend",
    "turn it off (--use_liger_kernel False)",
)


class TrainerFlag(TextRule):
    """Report Trainer flags in launch scripts that hand ports turned off or had to check:
    flash attention, Liger Kernel, and bf16 (a note).

    What it reports, in the arguments of any command of a shell or Slurm script (not in
    `echo`/`printf`, quotes, comments or heredocs):

    - `--flash_attn True`, `--use_flash_attn` (a bare switch), `--use_flash_attention_2 1`,
      `--attn_implementation flash_attention_2` (or `=` forms): flash-attn has no Ascend
      build (NPU050), so the run fails or the flag does nothing there;
    - `--use_liger_kernel True`: Triton kernels for CUDA (NPU065);
    - `--bf16 True` / `--bf16_full_eval True`, as a note: bf16 needs a host that supports
      it (Atlas A2/A3 do; check `torch.npu.is_bf16_supported()` there), else `--fp16`.

    A flag whose value turns it off (`False`, `0`, `sdpa`, `eager`) is left alone, and so
    is a value held in a variable (`--bf16 $BF16`). Nothing is rewritten.

    Why: launch scripts pass these flags to transformers' `TrainingArguments` or to the
    project's own argparse; the hand ports this project measures itself against turned the
    flash-attention flags off and checked bf16 on the host.

    Example: `torchrun train.py --bf16 True --flash_attn True` gives two warnings.

    Safety: reports only: whether a project's own `--flash_attn` falls back by itself is
    not known here.

    Caveats: `--tf32 True` (which transformers refuses on a non-CUDA device) is not this
    rule's; flags in Python launchers and YAML configs are not read.
    """

    code = "NPU104"
    action = "host-setup"
    fix_availability = FixAvailability.NEVER
    name = "trainer-flag"
    summary = "Report launch-script flags hand ports turned off: --flash_attn, liger; --bf16 note."
    trigger = Trigger(
        tokens=("flash_attn", "flash-attn", "flash_attention", "liger", "--bf16"),
        unit=Unit.FILE,
        files=SCRIPT_PATTERNS,
    )
    examples = (
        reported("torchrun train.py --bf16 True --flash_attn True\n", "run.sh"),
        Example("torchrun train.py --bf16 False --attn_implementation sdpa\n", path="run.sh"),
        Example('echo "--flash_attn True is not used"\n', path="run.sh"),
    )

    def check(self, text: str) -> list[Finding]:
        found_all: list[Finding] = []
        script = parse(text)
        starts = line_starts(text)
        for command in script.commands:
            name = command.name()
            if name is None or name in _LOGGERS:
                continue
            words = [w for w in command.words if not script.in_literal(w.start)]
            for index, word in enumerate(words):
                flag, equals, value = unquote(word.text).partition("=")
                following = words[index + 1].text if index + 1 < len(words) else None
                if not equals:
                    value = "" if following is None or following.startswith("-") else following
                    value = unquote(value)
                found = self._judge(flag, value)
                if found is None:
                    continue
                line, col = position(starts, word.start)
                message, suggestion = found
                found_all.append(
                    self.warning(
                        line,
                        col,
                        f"{flag}: {fill(message, self.target)}",
                        fill(suggestion, self.target),
                    )
                )
        return found_all

    @staticmethod
    def _judge(flag: str, value: str) -> tuple[str, str] | None:
        if "$" in value:
            return None
        switched_on = value.lower() not in _OFF
        if flag in _FLASH_FLAGS and switched_on:
            return _FLASH
        if flag in _ATTENTION_FLAGS and value.startswith("flash_attention"):
            return _ATTENTION
        if flag in _LIGER_FLAGS and switched_on:
            return _LIGER
        if flag in _BF16_FLAGS and switched_on:
            return _BF16
        return None
