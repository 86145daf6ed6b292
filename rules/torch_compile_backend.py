"""`torch.compile` with a backend that targets CUDA."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import find_arg, has_star_kwargs, string_value
from migrator.contract.rule import Example, TokenPattern
from migrator.contract.unsupported import UnsupportedConstruct, reported

# Backends that generate or call CUDA code; "inductor" is torch.compile's default.
_CUDA_BACKENDS = frozenset({"inductor", "cudagraphs", "tensorrt", "torch_tensorrt"})


class TorchCompileBackend(UnsupportedConstruct):
    """Report `torch.compile(...)` with the default Inductor backend or a CUDA-only backend.

    What it reports: each `torch.compile(model)` call or `@torch.compile` /
    `@torch.compile(...)` decorator whose backend is the default (no `backend=` given) or
    one of "inductor", "cudagraphs", "tensorrt", "torch_tensorrt". A call that names another
    backend (a string such as "eager", or an object such as `npu_backend`), or passes
    `**kwargs` that may hold one, is left alone.

    Why: Inductor's default code generation is Triton for CUDA GPUs; on an Ascend host it
    depends on torch-npu's own Inductor support (recent releases, with triton-ascend)
    rather than on CUDA's, so a project tuned for CUDA compilation has to check it there.
    "cudagraphs" and TensorRT are CUDA-only. torch-npu's graph-mode backend is torchair
    (`torch.compile(m, backend=torchair.get_npu_backend())`, mostly aimed at inference);
    running eagerly is always an option.

    Example: `model = torch.compile(model)` is reported;
    `torch.compile(model, backend=npu_backend)` is not.

    Safety: reports only, never rewrites: which backend suits a model is a measurement on
    the host.

    Caveats: `model.compile()` (the nn.Module method) and `torch._dynamo.optimize(...)` are
    not reported.
    """

    code = "NPU060"
    name = "torch-compile-backend"
    summary = (
        "Report torch.compile with the default Inductor or a CUDA-only backend (torchair instead)."
    )
    # torch.compile through any alias; `re.compile` is not a candidate.
    tokens = ("torch.compile",)
    token_patterns = (TokenPattern(".compile", r"(?<!\bre)\.compile\b"),)
    uses = ("torch.compile",)
    message = "Inductor, the default backend, generates Triton kernels for CUDA GPUs"
    suggestion = (
        "use {graph_compiler}, or run eagerly; Inductor itself needs checking on the {DEVICE} host"
    )
    examples = (
        reported("import torch\nmodel = torch.compile(model)\n"),
        reported(
            "import torch\n\n\n"
            '@torch.compile(mode="reduce-overhead")\ndef step(x):\n    return x * 2\n'
        ),
        reported('import torch\nmodel = torch.compile(model, backend="cudagraphs")\n'),
        Example("import torch\nmodel = torch.compile(model, backend=npu_backend)\n"),
        Example('import re\npattern = re.compile(r"cuda:\\d+")\n'),
    )

    def describe(self, name: str, call: cst.Call | None) -> str | None:
        if call is None:
            return super().describe(name, call)
        backend = find_arg(call, None, "backend")
        if backend is None:
            return None if has_star_kwargs(call) else super().describe(name, call)
        value = string_value(backend.value)
        if value not in _CUDA_BACKENDS:
            return None
        if value == "inductor":
            return super().describe(name, call)
        return f'the "{value}" backend runs on CUDA only'
