"""``torch.npu.amp``: autocast and gradient scaling on the npu device.

Like torch_npu, autocast accepts float16 and bfloat16 only (see
``torch.npu.get_amp_supported_dtype``); a float32 region is switched off by
``torch.autocast`` itself, with its "target dtype is not supported" warning.
"""

from __future__ import annotations

import functools
from typing import Any

import torch
from torch.amp.grad_scaler import OptState

from npu_emulator import devices, surface

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


class autocast(torch.amp.autocast):
    def __init__(
        self,
        enabled: bool = True,
        dtype: torch.dtype = torch.float16,
        cache_enabled: bool = True,
    ) -> None:
        super().__init__(
            devices.DEVICE_TYPE, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled
        )


class GradScaler(torch.amp.GradScaler):
    """torch_npu's own scaler, ``torch.npu.amp.GradScaler``, with its ``step`` contract.

    torch_npu's ``step`` (``torch_npu/npu/amp/grad_scaler.py``, the same in 2.6.0,
    2.7.1.post2, 2.7.1.post11 and 2.14.0) still follows the contract PyTorch deprecated:
    an optimizer that declares ``_step_supports_amp_scaling`` gets
    ``step(..., grad_scaler=self)``. torch's fused Adam/AdamW/SGD declare it but their
    ``step(closure=None)`` takes no such argument, so on a host the first
    ``scaler.step()`` raises ``TypeError: Adam.step() got an unexpected keyword argument
    'grad_scaler'``; so it does here. ``torch.amp.GradScaler("npu")`` (torch's own, which
    hands fused optimizers ``grad_scale``/``found_inf`` instead) works with them.
    """

    def step(self, optimizer: torch.optim.Optimizer, *args: Any, **kwargs: Any) -> Any:
        if not (self._enabled and getattr(optimizer, "_step_supports_amp_scaling", False)):
            return super().step(optimizer, *args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        retval = optimizer.step(*args, **dict(kwargs, grad_scaler=self))
        state["stage"] = OptState.STEPPED
        return retval

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        super().__init__(
            devices.DEVICE_TYPE,
            init_scale=init_scale,
            growth_factor=growth_factor,
            backoff_factor=backoff_factor,
            growth_interval=growth_interval,
            enabled=enabled,
        )


custom_fwd = functools.partial(torch.amp.custom_fwd, device_type=devices.DEVICE_TYPE)
custom_bwd = functools.partial(torch.amp.custom_bwd, device_type=devices.DEVICE_TYPE)


def __getattr__(name: str) -> object:
    surface.missing("torch.npu.amp", name)
