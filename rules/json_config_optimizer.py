"""JSON configs that build torch's Adam/AdamW/SGD unfused by class name."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from migrator import data
from migrator.contract.rule import Example, TextRule
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Finding, Safety, TextEdit
from migrator.formats.json_spans import JSONSpanError, Span, line_col, spans

# Keys by which config-driven factories name the class to build (a project's own
# `create_instance_from_config`, Hydra's `instantiate`, jsonargparse / Lightning).
_CLASS_KEYS = ("_class_name", "_target_", "class_path", "type")
_OPTIMIZERS = {f"torch.optim.{name}": name for name in ("Adam", "AdamW", "SGD")}
_CHOSEN = frozenset({"fused", "foreach", "differentiable"})
# A config value that turns on a GradScaler (torch_npu's, on an NPU, where the code builds
# it with `torch.cuda.amp.GradScaler`): the scaler's step() then fails on a fused optimizer.
_SCALER_KEY = re.compile(r"(?i)(?:grad_?scaler|loss_?scal|^fp16$|^use_amp$)")
_WHITESPACE = " \t\r\n"


class JsonConfigOptimizer(TextRule):
    """Ask a JSON config's torch optimizer for the fused kernel: `{"_class_name":
    "torch.optim.AdamW", "lr": 6e-5}` gains `"fused": true`.

    What it does: in a JSON file, an object whose class key (`_class_name`, `_target_`,
    `class_path`, `type`) is `torch.optim.AdamW` (or `Adam` / `SGD` where the target
    torch-npu release has their kernel, as NPU004 decides) and that sets none of `fused`,
    `foreach`, `differentiable` gets a `"fused": true` member after its last one, in the
    object's own indentation; every other byte stays (`migrator.formats.json_spans`).
    The code that builds it passes the object's other keys to the optimizer, so the config
    is where the choice is made.

    Not added, and reported why, where torch_npu's GradScaler may step the optimizer: the
    same file turns a scaler on (`"enable_grad_scaler": true`, `"fp16": true`, a
    loss-scale setting) and a project file builds torch_npu's scaler
    (`torch.npu.amp.GradScaler`, or `from torch.cuda.amp import GradScaler`, which the
    migration moves there), or the project trains fp16 with a library's scaler.
    torch_npu's `step()` passes `grad_scaler=` to a fused optimizer's `step()`, which
    takes none (`TypeError`). torch's own scaler (`torch.amp.GradScaler`, what NPU013
    writes for `torch.cuda.amp.GradScaler(...)`, and FSDP's `ShardedGradScaler`) follows
    the fused optimizers' contract, so a scaler setting alone does not stop the edit.

    Why: torch_npu registers a fused AdamW kernel that updates a parameter group in one
    launch; unfused, every step runs several operators per parameter through the NPU's
    dispatch queue. Hand ports swapped in a vendor's fused AdamW class; torch's own
    `fused` needs no new dependency.

    Example: `"optimizer": {"_class_name": "torch.optim.AdamW", "lr": 6e-5}` ->
    `"optimizer": {"_class_name": "torch.optim.AdamW", "lr": 6e-5, "fused": true}`.

    Safety: needs review: the fused kernel needs a float lr and floating-point parameters
    on the device; the file's builder must pass unknown keys on to the optimizer.
    """

    code = "NPU023"
    name = "json-config-optimizer"
    summary = 'JSON configs building torch.optim.AdamW by class name: "fused": true added.'
    safety = Safety.REVIEW
    trigger = Trigger(tokens=("torch.optim.",), unit=Unit.FILE, files=("*.json",))
    action = "review"
    examples = (
        Example(
            '{\n  "optimizer": {\n    "_class_name": "torch.optim.AdamW",\n'
            '    "lr": 6e-05\n  }\n}\n',
            '{\n  "optimizer": {\n    "_class_name": "torch.optim.AdamW",\n    "lr": 6e-05,\n'
            '    "fused": true\n  }\n}\n',
            path="configs/train.json",
        ),
        Example('{"optimizer": {"type": "AdamW", "fused": false}}\n', path="configs/a.json"),
    )

    def check(self, text: str) -> list[Finding]:
        try:
            found = spans(text)
        except (JSONSpanError, ValueError, RecursionError):
            return []
        release = self.ctx.project.target_release.version
        fused = data.fused_optimizers(release)
        scaler = self._project_scaler()
        if scaler is None and self.ctx.project.npu_grad_scalers:
            # A scaler this file turns on may be torch_npu's: the project builds one.
            setting = _scaler(text, found)
            if setting is not None:
                npu = self.ctx.project.npu_grad_scalers[0]
                scaler = f"{setting}, with {npu.how} at {npu.path}:{npu.line},"
        results: list[Finding] = []
        for path, span, short in _optimizers(found):
            if short not in fused:
                continue
            line, col = line_col(text, span.start)
            if scaler is not None:
                results.append(
                    self.warning(
                        line,
                        col,
                        f"{short}: fused not added: {scaler} may step it through torch_npu's "
                        "GradScaler, which passes grad_scaler= to a fused optimizer's step() "
                        "(TypeError)",
                        'build the scaler as torch.amp.GradScaler("npu") and add "fused": true',
                    )
                )
                continue
            edit = _insert_member(text, found, path, span)
            if edit is None:
                continue
            message = f'{short}: added "fused": true (fused {self.target.name} kernel)'
            results.append(self.change(line, col, message, edit))
        return results

    def _project_scaler(self) -> str | None:
        scalers = self.ctx.project.fp16_scalers
        if scalers:
            return f"fp16 with a library's GradScaler ({scalers[0].reason})"
        return None


def _optimizers(
    found: dict[tuple[str | int, ...], Span],
) -> Iterator[tuple[tuple[str | int, ...], Span, str]]:
    for path, span in found.items():
        value: Any = span.value
        if not isinstance(value, dict) or _CHOSEN & set(value):
            continue
        for key in _CLASS_KEYS:
            name = value.get(key)
            if isinstance(name, str) and name in _OPTIMIZERS:
                yield path, span, _OPTIMIZERS[name]
                break


def _scaler(text: str, found: dict[tuple[str | int, ...], Span]) -> str | None:
    """A setting in this file that turns a GradScaler on, as `key: value (line N)`."""
    for path, span in found.items():
        if not path or not isinstance(path[-1], str) or not _SCALER_KEY.search(path[-1]):
            continue
        if _on(span.value):
            line = line_col(text, span.start)[0]
            shown = json.dumps(span.value) if not isinstance(span.value, dict) else "{...}"
            return f'"{path[-1]}": {shown} (line {line})'
    return None


def _on(value: object) -> bool:
    """Whether a setting's value turns the scaler on (`true`, `512`, `"dynamic"`, `{...}`)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        return value.strip().lower() not in ("", "false", "no", "none", "0", "off")
    return isinstance(value, dict) and bool(value)


def _insert_member(
    text: str,
    found: dict[tuple[str | int, ...], Span],
    path: tuple[str | int, ...],
    span: Span,
) -> TextEdit | None:
    """`, "fused": true` after the object's last member, indented as that member is."""
    keys = list(span.value)
    if not keys:
        return None
    last = found.get((*path, keys[-1]))
    if last is None:
        return None
    key_text = json.dumps(keys[-1])
    key_at = text.rfind(key_text, span.start, last.start)
    if key_at < 0:
        return None
    indent_at = key_at
    while indent_at > span.start and text[indent_at - 1] in _WHITESPACE:
        indent_at -= 1
    separator = text[indent_at:key_at] or " "
    if "\n" not in separator:
        separator = " "
    return TextEdit(last.end, last.end, f',{separator}"fused": true')
