"""``torch.npu.amp``: autocast and gradient scaling on the npu device.

Like torch_npu, autocast accepts float16 and bfloat16 only (see
``torch.npu.get_amp_supported_dtype``); a float32 region is switched off by
``torch.autocast`` itself, with its "target dtype is not supported" warning.
"""

from __future__ import annotations

import functools

import torch

from npu_emulator import devices


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
