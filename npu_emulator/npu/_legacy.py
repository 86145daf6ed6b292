"""Legacy typed-tensor constructors: ``torch.npu.FloatTensor([1.0])`` and friends.

DeepSpeed's NPU accelerator still builds small tensors this way
(``get_accelerator().FloatTensor([norm])``), as old CUDA code does with
``torch.cuda.FloatTensor``.
"""

from __future__ import annotations

from typing import Any

import torch

from npu_emulator import devices


class LegacyTensorType:
    """A callable that makes npu tensors of one dtype; also usable with isinstance()."""

    def __init__(self, name: str, dtype: torch.dtype) -> None:
        self.__name__ = name
        self.dtype = dtype

    def __call__(self, *args: Any) -> torch.Tensor:
        device = devices.torch_device(devices.current())
        if not args or all(isinstance(a, int) for a in args):
            return torch.empty(args, dtype=self.dtype, device=device)
        if len(args) == 1 and isinstance(args[0], torch.Size):
            return torch.empty(args[0], dtype=self.dtype, device=device)
        if len(args) == 1:
            return torch.tensor(args[0], dtype=self.dtype, device=device)
        raise TypeError(f"torch.npu.{self.__name__}() takes sizes or one sequence of data")

    def __instancecheck__(self, obj: object) -> bool:
        return (
            isinstance(obj, torch.Tensor)
            and obj.device.type == devices.DEVICE_TYPE
            and obj.dtype == self.dtype
        )

    def __repr__(self) -> str:
        return f"<class 'torch.npu.{self.__name__}'>"


FloatTensor = LegacyTensorType("FloatTensor", torch.float32)
DoubleTensor = LegacyTensorType("DoubleTensor", torch.float64)
HalfTensor = LegacyTensorType("HalfTensor", torch.float16)
BFloat16Tensor = LegacyTensorType("BFloat16Tensor", torch.bfloat16)
LongTensor = LegacyTensorType("LongTensor", torch.int64)
IntTensor = LegacyTensorType("IntTensor", torch.int32)
ShortTensor = LegacyTensorType("ShortTensor", torch.int16)
CharTensor = LegacyTensorType("CharTensor", torch.int8)
ByteTensor = LegacyTensorType("ByteTensor", torch.uint8)
BoolTensor = LegacyTensorType("BoolTensor", torch.bool)
