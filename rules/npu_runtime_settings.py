"""Suggestion: the NPU run-time settings hand ports add to entry scripts."""

from __future__ import annotations

import libcst as cst

from migrator.contract.rule import Example
from migrator.contract.unsupported import reported
from migrator.core.model import FixAvailability, Safety
from rules.entry_point_setup import RUNTIME_SETTINGS, EntryPointSetup


class NpuRuntimeSettings(EntryPointSetup):
    """Suggest, as a note, two NPU run-time settings at the top of each entry script:
    `torch.npu.config.allow_internal_format = False` and
    `torch_npu.npu.set_compile_mode(jit_compile=False)`.

    What it reports: one note per entry script, on the files NPU030 (entry-point-setup)
    sets up (the same detection: `--entry` files, main blocks that train, scripts that
    train at import), unless the file already sets either of the two. It never edits.

    Why: half the hand ports this project measures itself against added both lines right
    after `import torch_npu`. `allow_internal_format = False` keeps tensors in the plain
    ND layout instead of the NPU's private formats (NZ, 5HD), which avoids layout casts
    around ops that lack a private-format kernel; `set_compile_mode(jit_compile=False)`
    runs ops from the precompiled binary kernels instead of compiling them online on first
    use, which shortens the first steps and avoids recompiling for every new shape. Both
    are tuning: code runs without them.

    Example: a training script with `if __name__ == "__main__":` gets the note at its main
    block: "add torch.npu.config.allow_internal_format = False and
    torch_npu.npu.set_compile_mode(jit_compile=False) after import torch_npu".

    Safety: a suggestion, never an edit. Suggestions have their own code range
    (NPU090-NPU099, see `rules/__init__.py`), so `--ignore NPU09` drops all of them and
    they are not counted among the warnings a user must fix.

    Caveats: measure both on the host: a model dominated by convolutions can be faster
    with the private formats (`allow_internal_format = True`).
    """

    code = "NPU090"
    action = "suggestion"
    fix_availability = FixAvailability.NEVER
    name = "npu-runtime-settings"
    summary = "Suggest allow_internal_format=False and set_compile_mode(jit_compile=False)."
    safety = Safety.SAFE
    # Runs before NPU030 so that it sees the file before its set-up block is added.
    priority = 100
    examples = (
        reported(
            "import torch\n\n\ndef main():\n    loss = torch.ones(1)\n    loss.backward()\n\n\n"
            'if __name__ == "__main__":\n    main()\n',
            "train.py",
        ),
        Example(
            "import torch\nimport torch_npu\n\ntorch.npu.config.allow_internal_format = False\n\n\n"
            "def main():\n    loss = torch.ones(1)\n    loss.backward()\n\n\n"
            'if __name__ == "__main__":\n    main()\n',
            path="train.py",
        ),
    )

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        code = self.ctx.shared.code(original_node)
        if any(setting in code for setting in RUNTIME_SETTINGS):
            return updated_node
        return super().leave_Module(original_node, updated_node)

    def _set_up_entry(self, original: cst.Module, updated: cst.Module, reason: str) -> cst.Module:
        anchor: cst.CSTNode = self._main.test if self._main is not None else original
        if self._main is None and original.body:
            anchor = original.body[0]
        runtime = self.target.runtime_module
        self.warn(
            anchor,
            f"suggestion: an entry script ({reason}); NPU ports usually set the "
            f"{self.target.device_type.upper()} run-time options here",
            f"add torch.{self.target.device_type}.config.allow_internal_format = False and "
            f"{runtime}.{self.target.device_type}.set_compile_mode(jit_compile=False) "
            f"after import {runtime}",
            within=(self._main,) if self._main is not None else None,
        )
        return updated

    def _report_device_script(self) -> None:
        return None
