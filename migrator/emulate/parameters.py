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

from migrator.emulate.tensor import NpuTensor

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


def swap_tensors(t1: torch.Tensor, t2: torch.Tensor) -> None:
    original = _ORIGINAL[0]
    if isinstance(t1, NpuTensor) or isinstance(t2, NpuTensor):
        with _weak_references_allowed():
            return original(t1, t2)
    return original(t1, t2)


def install() -> None:
    _ORIGINAL.append(torch.utils.swap_tensors)
    torch.utils.swap_tensors = swap_tensors
