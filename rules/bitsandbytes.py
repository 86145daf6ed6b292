"""bitsandbytes quantized layers and optimizers."""

from __future__ import annotations

from migrator.contract.rule import Example
from migrator.contract.trigger import Trigger
from migrator.contract.unsupported import UnsupportedConstruct, reported


class Bitsandbytes(UnsupportedConstruct):
    """Report bitsandbytes: its imports and calls, and `BitsAndBytesConfig(...)` of
    transformers and diffusers.

    What it reports: `import bitsandbytes as bnb`, calls such as `bnb.optim.AdamW8bit(...)`,
    `bnb.nn.Linear8bitLt(...)`, `bnb.nn.Params4bit(...)`, and
    `transformers.BitsAndBytesConfig(...)` / `diffusers.BitsAndBytesConfig(...)`, which load
    a model through bitsandbytes. Matching is by qualified name; optional imports are not
    reported.

    Why: bitsandbytes' 8-bit optimizers and 4/8-bit layers are custom kernels; its PyPI
    wheels are built for CUDA (and CPU and a few other backends), and its Ascend support is
    a from-source build that covers only part of the library (NF4 quantization). Its 8-bit
    optimizers and int8 layers cannot be relied on there, so quantized loading or the first
    optimizer step fails or falls back.

    Example: `import bitsandbytes as bnb` and `bnb.optim.AdamW8bit(params, lr=1e-4)` give
    two warnings.

    Safety: reports only, never rewrites: dropping quantization changes memory use
    (bf16 weights take 2-4x the memory of 8/4-bit ones), which a person must plan for.

    Caveats: `from_pretrained(..., load_in_8bit=True)` (the older spelling without a config
    object) is not reported.
    """

    code = "NPU058"
    action = "replace-library"
    name = "bitsandbytes"
    summary = "Report bitsandbytes imports, calls and BitsAndBytesConfig: CUDA-only quantization."
    trigger = Trigger(tokens=("bitsandbytes", "BitsAndBytesConfig"))
    modules = ("bitsandbytes",)
    uses = ("bitsandbytes", "transformers.BitsAndBytesConfig", "diffusers.BitsAndBytesConfig")
    message = (
        "bitsandbytes' kernels are CUDA builds; its {DEVICE} support is partial and from source"
    )
    suggestion = (
        "use torch.optim.AdamW, fused=True runs on the {DEVICE}, and bf16 weights instead of "
        "8/4-bit quantization"
    )
    examples = (
        reported("import bitsandbytes as bnb\noptimizer = bnb.optim.AdamW8bit(params, lr=1e-4)\n"),
        reported(
            "from transformers import BitsAndBytesConfig\n"
            "config = BitsAndBytesConfig(load_in_4bit=True)\n"
        ),
        Example("import torch\noptimizer = torch.optim.AdamW(params, lr=1e-4, fused=True)\n"),
        Example('print("bitsandbytes missing")\n'),
    )
