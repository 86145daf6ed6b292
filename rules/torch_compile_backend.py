"""`torch.compile` with a backend that targets CUDA."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

import libcst as cst

from migrator.analysis.ast_lines import statement_nodes
from migrator.analysis.cst_helpers import find_arg, has_star_kwargs, string_value
from migrator.contract.rule import Example, TokenPattern
from migrator.contract.trigger import RegionView, Trigger
from migrator.contract.unsupported import UnsupportedConstruct, covers, reported

# Backends that generate or call CUDA code; "inductor" is torch.compile's default.
_CUDA_BACKENDS = frozenset({"inductor", "cudagraphs", "tensorrt", "torch_tensorrt"})
# Keras' Model.compile and distutils' CCompiler.compile take these; nn.Module.compile does not.
_OTHER_COMPILE_ARGUMENTS = (
    "optimizer", "loss", "metrics", "output_dir", "macros", "include_dirs", "extra_preargs",
    "extra_postargs", "depends",
)  # fmt: skip


def _may_report(region: RegionView) -> bool:
    """Whether a region can hold a report, read from the stdlib tree: a name under
    `torch.compile` (a call or decorator through any alias), or a `.compile(...)` method
    call as `visit_Call` reports it, in a module that imports torch."""
    if covers(region.qualified, _USES):
        return True
    if not _imports_torch(region.names):
        return False
    for statement in region.statements:
        for node in statement_nodes(statement):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "compile"
                and not (
                    isinstance(node.func.value, ast.Constant)
                    and isinstance(node.func.value.value, (str, bytes))
                )
                and not any(word.arg in _OTHER_COMPILE_ARGUMENTS for word in node.keywords)
                and not (node.args and isinstance(node.args[0], (ast.List, ast.Tuple)))
            ):
                return True
    return False


def _imports_torch(names: Mapping[str, Sequence[str | None]]) -> bool:
    return any(
        value is not None and (value == "torch" or value.startswith("torch."))
        for values in names.values()
        for value in values
    )


_USES = frozenset({"torch.compile"})


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

    `nn.Module.compile(...)` (`model.compile()`, `self.backbone.compile(mode=...)`), which
    compiles the module in place with the same backends, is reported the same way, in files
    that import torch: a `.compile` method call whose receiver is not an imported module
    (`re.compile` is not), that passes none of Keras' `optimizer=` / `loss=` / `metrics=`
    nor distutils' `output_dir=` / `macros=` / `include_dirs=` / `extra_preargs=`, and whose
    first argument is not a list of sources.

    Example: `model = torch.compile(model)` and `model.compile()` are reported;
    `torch.compile(model, backend=npu_backend)` is not.

    Safety: reports only, never rewrites: which backend suits a model is a measurement on
    the host.

    Caveats: `torch._dynamo.optimize(...)` is not reported; a `.compile()` method of a
    non-torch object in a file that imports torch (an ORM query, a template) is.
    """

    code = "NPU060"
    action = "port-code"
    name = "torch-compile-backend"
    summary = (
        "Report torch.compile with the default Inductor or a CUDA-only backend (torchair instead)."
    )
    # torch.compile through any alias; `re.compile` is not a candidate.
    trigger = Trigger(
        tokens=("torch.compile",),
        patterns=(TokenPattern(".compile", r"(?<!\bre)\.compile\b"),),
        region=_may_report,
        # Every name it reports spells `compile` as a word (`torch.compile`, an import of
        # it, `.compile(`): a file that says only `torch.compiler` is not parsed for it.
        needs=(TokenPattern("compile", r"\bcompile\b"),),
        # Decides from the call, its arguments and whether the file imports torch.
        local=True,
    )
    uses = tuple(_USES)
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
        reported("import torch\nmodel = Net()\nmodel.compile()\n"),
        Example('import torch\nmodel.compile(optimizer="adam", loss="mse")\n'),
    )

    def visit_Call(self, node: cst.Call) -> None:
        super().visit_Call(node)
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "compile"
            and self.qualname(func) is None
            and not isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString))
            and not any(find_arg(node, None, word) for word in _OTHER_COMPILE_ARGUMENTS)
            and not (node.args and isinstance(node.args[0].value, (cst.List, cst.Tuple)))
            and self._imports_torch()
        ):
            text = self.describe("torch.nn.Module.compile", node)
            if text is not None:
                self.warn(node, f"Module.compile(): {text}", self.suggest("torch.compile"))

    def _imports_torch(self) -> bool:
        return _imports_torch(self.ctx.bindings.names)

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
