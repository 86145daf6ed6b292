"""``torch.compile`` under emulation: run eagerly, and say so.

Compiling for the NPU (torch_npu's inductor backend, torchair) cannot be emulated, and
Dynamo cannot trace the emulator's tensors. Compilation only changes speed, so the
model or function is returned as it is, with a warning naming the API: results stay
right, and the log shows that compiled code was not exercised.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

MESSAGE = (
    "npu emulator: torch.compile is not emulated; the model runs eagerly "
    "(compiled NPU code is not exercised)"
)


def eager_compile(model: Any = None, /, **options: Any) -> Any:
    if model is None:  # used as @torch.compile(mode=...)
        return lambda fn: eager_compile(fn, **options)
    warnings.warn(MESSAGE, UserWarning, stacklevel=2)
    return model


def _module_compile(self: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
    warnings.warn(MESSAGE, UserWarning, stacklevel=2)


def install() -> None:
    patched: Callable[..., Any] = eager_compile
    torch.compile = patched
    torch.nn.Module.compile = _module_compile  # type: ignore[method-assign]  # in-place form
