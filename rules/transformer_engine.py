"""NVIDIA Transformer Engine imports and calls."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported

_TE = "transformer_engine.pytorch"


class TransformerEngine(UnsupportedConstruct):
    """Report NVIDIA Transformer Engine: imports of `transformer_engine` and every call
    into it, each with the torch / torch_npu module to use instead.

    What it reports: `import transformer_engine.pytorch as te`,
    `from transformer_engine.pytorch import Linear`, and calls such as `te.Linear(...)`,
    `te.LayerNorm(...)`, `te.RMSNorm(...)`, `te.LayerNormLinear(...)`,
    `te.DotProductAttention(...)`, `te.TransformerLayer(...)`, `with te.fp8_autocast(...):`,
    `DelayedScaling(...)` recipes and the rotary helpers, by qualified name. Optional imports
    are not reported; calls through the names they bind are.

    Why: Transformer Engine's modules are CUDA (cuBLASLt, cuDNN) kernels built for NVIDIA
    GPUs, with FP8 paths for Hopper and newer; there is no Ascend build, and the Atlas A2
    has no FP8 matmul. Each module has a plain counterpart that runs on the NPU:

    - `te.Linear` -> `torch.nn.Linear`; `te.LayerNorm` -> `torch.nn.LayerNorm`;
      `te.LayerNormLinear` / `te.LayerNormMLP` -> `torch.nn.LayerNorm` + `torch.nn.Linear`;
    - `te.RMSNorm` -> `torch.nn.RMSNorm`, or the fused `torch_npu.npu_rms_norm(x, weight,
      epsilon=eps)[0]`;
    - `te.DotProductAttention` -> `torch.nn.functional.scaled_dot_product_attention` or
      `torch_npu.npu_fusion_attention` (takes an `input_layout` such as "BSND"/"BNSD" and
      returns a tuple, output first);
    - `te.fp8_autocast` and `transformer_engine.common.recipe` -> drop them: run in bf16
      (`torch.autocast("npu", dtype=torch.bfloat16)`);
    - rotary helpers (`apply_rotary_pos_emb`) -> `torch_npu.npu_rotary_mul(x, cos, sin)`.

    Example: `import transformer_engine.pytorch as te` and `te.Linear(1024, 1024)` give two
    warnings, the second suggesting `torch.nn.Linear`.

    Safety: reports only, never rewrites: TE modules fuse bias, norm and parallelism
    options (`tp_group`, `sequence_parallel`, `fuse_wgrad_accumulation`) that have no
    one-to-one torch argument.

    Caveats: TE's weights are named like torch's for Linear/LayerNorm, but not for the
    fused modules; a checkpoint saved with them needs its keys mapped.
    """

    code = "NPU063"
    action = "replace-library"
    name = "transformer-engine"
    summary = "Report NVIDIA Transformer Engine modules and fp8_autocast (torch.nn / torch_npu)."
    trigger = Trigger(tokens=("transformer_engine",))
    modules = ("transformer_engine",)
    uses = ("transformer_engine",)
    message = "Transformer Engine is a CUDA-only kernel library with no {DEVICE} build"
    suggestion = "replace it with the torch.nn module (torch.nn.Linear, LayerNorm, RMSNorm)"
    suggestions: ClassVar[Mapping[str, str]] = {
        f"{_TE}.Linear": "use torch.nn.Linear",
        f"{_TE}.LayerNorm": "use torch.nn.LayerNorm",
        f"{_TE}.LayerNormLinear": "use torch.nn.LayerNorm followed by torch.nn.Linear",
        f"{_TE}.LayerNormMLP": "use torch.nn.LayerNorm followed by a torch.nn.Linear MLP",
        f"{_TE}.RMSNorm": "use torch.nn.RMSNorm, or {rms_norm}(x, weight, epsilon=eps)[0]",
        f"{_TE}.DotProductAttention": (
            "use torch.nn.functional.scaled_dot_product_attention, or {fused_attention} "
            '(input_layout "BSND"/"BNSD"; it returns a tuple, output first)'
        ),
        f"{_TE}.MultiheadAttention": "use torch.nn.MultiheadAttention",
        f"{_TE}.fp8_autocast": (
            'drop it: the {DEVICE} has no FP8 matmul; run in bf16 (torch.autocast("{device}", '
            "dtype=torch.bfloat16))"
        ),
        f"{_TE}.fp8_model_init": "drop it: the {DEVICE} has no FP8 matmul; keep bf16 weights",
        "transformer_engine.common.recipe": "drop the FP8 recipe: the {DEVICE} has no FP8 matmul",
        f"{_TE}.attention.apply_rotary_pos_emb": "use {rotary_mul}(x, cos, sin)",
        f"{_TE}.attention.rope": "use {rotary_mul}(x, cos, sin)",
        f"{_TE}.apply_rotary_pos_emb": "use {rotary_mul}(x, cos, sin)",
    }
    examples = (
        reported("import transformer_engine.pytorch as te\nproj = te.Linear(1024, 1024)\n"),
        reported(
            "from transformer_engine.pytorch import fp8_autocast\n"
            "with fp8_autocast(enabled=True):\n    y = model(x)\n"
        ),
        Example("import torch\nproj = torch.nn.Linear(1024, 1024)\n"),
        Example('print("transformer_engine not installed")\n'),
    )
