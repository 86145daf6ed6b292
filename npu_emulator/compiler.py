"""``torch.compile`` under emulation: run eagerly, and say so.

Compiling for the NPU (torch_npu's Inductor backend, which needs triton-ascend on the
host, or torchair) cannot be emulated, and Dynamo cannot trace the emulator's tensors.
Compilation only changes speed, so the model or function is returned as it is, with a
warning naming the API: results stay right, and the log shows that compiled code was not
exercised. When such a model or function then runs, the run's report says so
(``events["torch_compile_ran"]`` and a line in ``host_notes``): a host needs the
Inductor backend for it.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import torch

from npu_emulator import report

MESSAGE = (
    "npu emulator: torch.compile is not emulated; the model runs eagerly "
    "(compiled NPU code is not exercised)"
)
HOST_NOTE = (
    "a torch.compile'd model or function ran (eagerly here); on an Ascend host "
    "torch.compile needs torch_npu's Inductor backend (triton-ascend installed)"
)


def _ran() -> None:
    report.note("torch_compile_ran")
    report.host_note(HOST_NOTE)


_MARKED: weakref.WeakSet[torch.nn.Module] = weakref.WeakSet()


def _pre_hook(module: torch.nn.Module, args: Any) -> None:
    _ran()


def _mark(model: Any) -> Any:
    if isinstance(model, torch.nn.Module):
        # The module itself is returned (callers compare or save it); a hook notes its runs.
        if model not in _MARKED:
            _MARKED.add(model)
            model.register_forward_pre_hook(_pre_hook)
        return model
    if callable(model):

        @functools.wraps(model)
        def compiled(*args: Any, **kwargs: Any) -> Any:
            _ran()
            return model(*args, **kwargs)

        return compiled
    return model


def eager_compile(model: Any = None, /, **options: Any) -> Any:
    if model is None:  # used as @torch.compile(mode=...)
        return lambda fn: eager_compile(fn, **options)
    warnings.warn(MESSAGE, UserWarning, stacklevel=2)
    return _mark(model)


def _module_compile(self: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
    warnings.warn(MESSAGE, UserWarning, stacklevel=2)
    _mark(self)


def install() -> None:
    patched: Callable[..., Any] = eager_compile
    torch.compile = patched
    torch.nn.Module.compile = _module_compile  # type: ignore[method-assign]  # in-place form
