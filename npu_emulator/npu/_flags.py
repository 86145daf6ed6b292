"""Switches of ``torch.npu`` that select NPU kernels: kept, checked, without numerical effect.

On an Ascend card ``allow_hf32`` lets matmul/conv compute fp32 inputs in HF32. The
emulator computes in full fp32 on the CPU whatever the flag says; it keeps the value so
that code setting and reading it runs, and rejects names that torch_npu rejects.
"""

from __future__ import annotations

from typing import Any

import torch


class _HF32Switch:
    """``torch.npu.matmul`` / ``torch.npu.conv``: only ``allow_hf32`` exists."""

    _name: str
    allow_hf32: bool

    def __init__(self, name: str, default: bool) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "allow_hf32", default)

    def __setattr__(self, key: str, value: Any) -> None:
        if key != "allow_hf32":
            # torch_npu raises for e.g. allow_tf32: the CUDA name does not exist here.
            raise AttributeError(f"Unknown attribute {key} of torch.npu.{self._name}")
        object.__setattr__(self, key, bool(value))

    def __repr__(self) -> str:
        return f"torch.npu.{self._name}(allow_hf32={self.allow_hf32})"


class _Config:
    """``torch.npu.config``: private-format switches that only matter to NPU kernels."""

    def __init__(self) -> None:
        self.allow_internal_format = False


matmul = _HF32Switch("matmul", default=False)
conv = _HF32Switch("conv", default=True)
config = _Config()
_compile_mode: dict[str, bool] = {"jit_compile": True}


def set_compile_mode(jit_compile: bool = True) -> None:
    _compile_mode["jit_compile"] = bool(jit_compile)


def get_amp_supported_dtype() -> list[torch.dtype]:
    # What torch_npu reports: float32 autocast regions are therefore disabled.
    return [torch.float16, torch.bfloat16]


def is_bf16_supported() -> bool:
    return True
