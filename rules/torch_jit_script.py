"""`torch.jit.script`, which transfer_to_npu disables."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class TorchJitScript(UnsupportedConstruct):
    """Report TorchScript compilation: `torch.jit.script(...)` calls and
    `@torch.jit.script` / `@torch.jit.script_method` decorators.

    What it reports: each call and decorated function, by qualified name
    (`from torch.jit import script` included). `torch.jit.trace`, `torch.jit.save` /
    `load` and `@torch.jit.ignore` are left alone.

    Why: `torch_npu.contrib.transfer_to_npu`, which entry scripts import after migration
    (NPU030), disables TorchScript: `torch.jit.script` then hands back what it was given,
    unscripted. Code that only scripts for speed still runs (eagerly); code that needs a
    real ScriptModule (`.save()` for deployment, `.graph`, `.code`, `torch.jit.freeze`)
    breaks. mx_driving's patcher imports transfer_to_npu too.

    Example: `@torch.jit.script` over a helper function is reported once; a
    `torch.jit.trace(model, x)` call is not.

    Safety: reports only. Drop `torch.jit.script` where it only speeds things up; where a
    serialized model is the point, export without transfer_to_npu (`migrate
    --no-transfer-to-npu`, or a separate export script) or with `torch.export` / ONNX.

    Caveats: a project that does not use transfer_to_npu keeps TorchScript; `--ignore
    NPU070` silences this rule there.
    """

    code = "NPU070"
    action = "port-code"
    name = "torch-jit-script"
    summary = "Report torch.jit.script: transfer_to_npu disables TorchScript (returns it as is)."
    trigger = Trigger(tokens=("torch.jit", "jit.script", "script_method"), local=True)
    uses = ("torch.jit.script", "torch.jit.script_method", "torch.jit._script.script")
    message = "transfer_to_npu disables TorchScript, so this returns its argument unscripted"
    suggestion = (
        "drop it where it only speeds things up; export a ScriptModule without "
        "transfer_to_npu, or with torch.export / ONNX"
    )
    examples = (
        reported("import torch\n\n\n@torch.jit.script\ndef gelu(x):\n    return x * 0.5\n"),
        reported("import torch\nscripted = torch.jit.script(model)\n"),
        Example("import torch\ntraced = torch.jit.trace(model, example)\n"),
    )
