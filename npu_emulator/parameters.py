"""``module.to("npu")`` keeps each parameter object, as ``.to("cuda")`` does.

On a real device PyTorch moves a parameter in place (``param.data = moved``), so every
reference to it (an optimizer built earlier, a DeepSpeed engine, a weak-keyed table)
sees the moved tensor. An npu tensor is a different kind of tensor than a CPU one, so
PyTorch swaps the two Python objects' contents instead (``torch.utils.swap_tensors``),
which gives the same identity semantics but refuses tensors that have weak references.
Those weak references keep pointing at the same object, now on the npu, which is what
``.data =`` gives on CUDA; so for npu tensors the swap is allowed to go ahead. Its other
safety checks (no other C++ holders of the tensor) still apply.
"""

from __future__ import annotations

import contextlib
import types
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.utils

from npu_emulator import _torch
from npu_emulator.tensor import NpuTensor

_ORIGINAL: list[Callable[[torch.Tensor, torch.Tensor], None]] = []
# Stands in for the weakref module inside torch.utils while an npu swap runs.
_NO_WEAKREF_CHECK = types.SimpleNamespace(getweakrefs=lambda obj: [])


@contextlib.contextmanager
def _weak_references_allowed() -> Iterator[None]:
    module: Any = torch.utils
    module.weakref = _NO_WEAKREF_CHECK
    try:
        yield
    finally:
        module.weakref = weakref


_IMPL_ATTRIBUTES = ("_inner", "_npu_index")


def _python_attributes(tensor: torch.Tensor) -> dict[str, Any]:
    return {k: v for k, v in tensor.__dict__.items() if k not in _IMPL_ATTRIBUTES}


def swap_tensors(t1: torch.Tensor, t2: torch.Tensor) -> None:
    original = _ORIGINAL[0]
    if isinstance(t1, NpuTensor) or isinstance(t2, NpuTensor):
        # Standing in for `t1.data = t2` (a device move), the swap must leave t1 its own
        # Python attributes: DeepSpeed keeps ds_id, ds_shape, ... on parameters, and a
        # move on CUDA never drops them.
        kept = _python_attributes(t1)
        with _weak_references_allowed():
            original(t1, t2)
        t1.__dict__.update(kept)
        return None
    return original(t1, t2)


def install() -> None:
    _ORIGINAL.append(torch.utils.swap_tensors)
    torch.utils.swap_tensors = swap_tensors
    install_data_setter()


# `tensor.data = other` across devices --------------------------------------------------
#
# On CUDA `param.data = param.data.to("cuda")` moves a CPU parameter in place; DeepSpeed's
# ZeRO-3 does exactly that for every parameter it partitions. An npu tensor is a different
# kind of tensor than a CPU one, so PyTorch's `set_data` refuses the pair. The emulator's
# `.data` setter keeps that case working the way `module.to("npu")` does: it swaps the
# object's contents with a tensor of the new kind (identity, `requires_grad` and the Python
# attributes DeepSpeed keeps on parameters stay), and leaves every compatible assignment to
# PyTorch itself.


def _is_npu(tensor: torch.Tensor) -> bool:
    return isinstance(tensor, NpuTensor)


def _get_data(self: torch.Tensor) -> torch.Tensor:
    result: torch.Tensor = _torch.TENSOR_DATA.__get__(self)
    return result


def _set_data(self: torch.Tensor, value: torch.Tensor) -> None:
    if not isinstance(value, torch.Tensor) or _is_npu(self) == _is_npu(value):
        _torch.TENSOR_DATA.__set__(self, value)
        return
    move_data(self, value)


def move_data(self: torch.Tensor, value: torch.Tensor) -> None:
    """`self.data = value` where one is an npu tensor and the other is not."""
    attributes = _python_attributes(self)
    replacement: torch.Tensor
    if isinstance(self, torch.nn.Parameter):
        replacement = torch.nn.Parameter(value.detach(), requires_grad=self.requires_grad)
    else:
        replacement = value.detach().requires_grad_(self.requires_grad)
    swap_tensors(self, replacement)
    self.__dict__.update(attributes)


def install_data_setter() -> None:
    """Make `tensor.data = other` work between CPU and npu tensors (see above)."""
    torch.Tensor.data = property(_get_data, _set_data)  # type: ignore[assignment]
