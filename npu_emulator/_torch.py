"""The untyped corners of PyTorch that the emulator calls, typed once, here.

PyTorch ships type hints, but several private or experimental APIs that a Python
backend needs have none. Each is wrapped below with its ``type: ignore`` on one line.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import torch
import torch._tensor_str
from torch._ops import OpOverload

#: The C descriptor behind ``Tensor.data`` (getter: detached alias; setter: set_data).
TENSOR_DATA: Any = vars(torch._C.TensorBase)["data"]


def aten_op(name: str) -> OpOverload:
    """``"conv2d.padding"`` -> ``torch.ops.aten.conv2d.padding`` (no overload: default)."""
    packet_name, _, overload = name.partition(".")
    packet = getattr(torch.ops.aten, packet_name)
    op: OpOverload = getattr(packet, overload or "default")
    return op


def library(namespace: str, kind: str) -> Any:
    """``torch.library.Library(namespace, kind)``."""
    return torch.library.Library(namespace, kind)  # type: ignore[no-untyped-call]  # untyped


def register_device_module(device_type: str, module: ModuleType) -> None:
    torch._register_device_module(device_type, module)  # type: ignore[no-untyped-call]  # untyped


def dispatch_key_set(key: str) -> Any:
    """A DispatchKeySet of one key, by name (the stubs lack the PrivateUse1 keys)."""
    return torch._C.DispatchKeySet(torch._C.DispatchKey.__members__[key])


def typed_storage(untyped: torch.UntypedStorage, dtype: torch.dtype) -> torch.TypedStorage:
    return torch.TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)  # type: ignore[no-untyped-call]  # untyped


def tensor_str(tensor: torch.Tensor, tensor_contents: Any) -> str:
    """What ``Tensor.__repr__`` prints."""
    text: str = torch._tensor_str._str(tensor, tensor_contents=tensor_contents)  # type: ignore[no-untyped-call]  # untyped
    return text


def generator_address(gen: torch.Generator) -> int:
    """The address of the C++ generator behind ``gen`` (stable across Python wrappers)."""
    address: int = gen._cdata  # type: ignore[attr-defined]  # not in the stubs
    return address
