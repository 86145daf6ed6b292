"""`mixed_precision` in an accelerate config that also names a DeepSpeed config file."""

from __future__ import annotations

from typing import Any

from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Finding, TextEdit
from migrator.formats.sources import split_lines

KEY = "mixed_precision"


def _load(text: str) -> Any:
    # Imported here: YAML support costs start-up that runs without YAML files skip.
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        return YAML(typ="rt").load(text)
    except (YAMLError, ValueError):
        return None


def _plain(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _plain(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_plain(value) for value in node]
    return node


class AccelerateMixedPrecision(TextRule):
    """Drop `mixed_precision` from accelerate configs that name a `deepspeed_config_file`.

    What it does: in an accelerate YAML config whose `deepspeed_config` names a
    `deepspeed_config_file`, the top-level `mixed_precision: ...` line is deleted, whatever
    its value. The file is read with ruamel.yaml only to find the key; the edit deletes that
    line (and any continuation lines of its value), so comments, quoting and the order of the
    other keys stay byte for byte, and the result is re-read to check that only that key went.

    Why: with a DeepSpeed config file, precision belongs to that file (`bf16`/`fp16`
    sections), and accelerate refuses launch-config settings that would contradict it:
    "When using `deepspeed_config_file`, the following accelerate config variables will be
    ignored: [... 'mixed_precision']" is raised as an error at start-up for any value,
    `"no"` included (the blog's `mixed_precision: "no"` does not avoid it). The DeepSpeed
    rules of this profile make that file decide (DIT001) and set its bf16 (DIT010).

    Example: `mixed_precision: bf16` next to
    `deepspeed_config: {deepspeed_config_file: ds.json}` is removed.

    Safety: safe: a config in this shape cannot start at all.

    Caveats: upstream's configs never combine the two (only `zero2.yaml` sets
    `mixed_precision`, and it has no `deepspeed_config_file`), so on upstream this rule
    changes nothing. `--mixed_precision` given on the `accelerate launch` command line
    clashes the same way and is not handled here.
    """

    code = "DIT011"
    action = "host-setup"
    name = "accelerate-mixed-precision"
    summary = "Accelerate config naming a deepspeed_config_file: drop mixed_precision (refused)."
    trigger = Trigger(tokens=("deepspeed_config_file",), unit=Unit.FILE, files=("*.yaml", "*.yml"))
    # Runs after the rules that keep line counts, so their reports name the file's own lines.
    priority = 800
    examples = (
        Example(
            "deepspeed_config:\n  deepspeed_config_file: ds.json\n"
            "distributed_type: DEEPSPEED\nmixed_precision: 'no'\nnum_processes: 8\n",
            "deepspeed_config:\n  deepspeed_config_file: ds.json\n"
            "distributed_type: DEEPSPEED\nnum_processes: 8\n",
            path="configs/zero3.yaml",
        ),
        Example(
            "deepspeed_config:\n  zero_stage: 2\n"
            "distributed_type: DEEPSPEED\nmixed_precision: bf16\n",
            None,
            path="configs/zero2.yaml",
        ),
    )

    def check(self, text: str) -> list[Finding]:
        from ruamel.yaml.comments import CommentedMap

        data = _load(text)
        if not isinstance(data, CommentedMap) or KEY not in data:
            return []
        deepspeed = data.get("deepspeed_config")
        if not isinstance(deepspeed, dict) or not deepspeed.get("deepspeed_config_file"):
            return []
        row, col = data.lc.key(KEY)
        lines = split_lines(text)
        end = row + 1
        while end < len(lines) and lines[end].strip() and _indent(lines[end]) > col:
            end += 1
        start = sum(len(line) for line in lines[:row])
        stop = start + sum(len(line) for line in lines[row:end])
        if end == len(lines) and row and not lines[-1].endswith(("\n", "\r")):
            # The key was the last line and the file had no final newline: keep it that way.
            start -= len(lines[row - 1]) - len(lines[row - 1].rstrip("\r\n"))
        removal = TextEdit(start, stop, "")
        new = text[:start] + text[stop:]
        expected = {key: value for key, value in _plain(data).items() if key != KEY}
        if _plain(_load(new)) != expected:
            warning = self.warning(
                row + 1,
                col + 1,
                f"{KEY} cannot be removed line by line here; accelerate refuses it next to "
                "deepspeed_config_file",
                f"delete the {KEY} key by hand",
            )
            return [warning]
        message = (
            f"{KEY} {data[KEY]!r} removed: next to deepspeed_config_file accelerate refuses it "
            '(any value, "no" too); precision comes from the DeepSpeed config\'s bf16/fp16'
        )
        return [self.change(row + 1, col + 1, message, removal)]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
