"""``torch.npu`` on the emulator (also ``torch_npu.npu``).

Registered as PyTorch's device module for "npu" by :func:`npu_emulator.install`.
Its names are decided by the released API data (``surface.py``): a name of the emulated
torch-npu release that this module lacks raises
:class:`npu_emulator.errors.NotEmulatedError` naming it and why; a name the release lacks
raises ``AttributeError``, as on the host.
"""

from __future__ import annotations

import torch

from npu_emulator import rng, surface
from npu_emulator.npu import amp, random, streams
from npu_emulator.npu._device import (
    _is_in_bad_fork,
    _lazy_call,
    _lazy_init,
    current_device,
    device,
    device_count,
    device_of,
    get_device_name,
    get_device_properties,
    init,
    is_available,
    is_initialized,
    set_device,
    synchronize,
)
from npu_emulator.npu._flags import (
    config,
    conv,
    get_amp_supported_dtype,
    is_bf16_supported,
    matmul,
    set_compile_mode,
)
from npu_emulator.npu._legacy import (
    BFloat16Tensor,
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from npu_emulator.npu._memory import (
    empty_cache,
    max_memory_allocated,
    max_memory_cached,
    max_memory_reserved,
    mem_get_info,
    memory_allocated,
    memory_cached,
    memory_reserved,
    memory_stats,
    memory_summary,
    reset_max_memory_allocated,
    reset_max_memory_cached,
    reset_peak_memory_stats,
)
from npu_emulator.npu._random import (
    get_rng_state,
    get_rng_state_all,
    initial_seed,
    manual_seed,
    manual_seed_all,
    seed,
    seed_all,
    set_rng_state,
    set_rng_state_all,
)
from npu_emulator.npu.streams import (
    Event,
    Stream,
    current_stream,
    default_stream,
    set_stream,
    stream,
)

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "Event",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "Stream",
    "_is_in_bad_fork",
    "_lazy_call",
    "_lazy_init",
    "amp",
    "config",
    "conv",
    "current_device",
    "current_stream",
    "default_generators",
    "default_stream",
    "device",
    "device_count",
    "device_of",
    "empty_cache",
    "get_amp_supported_dtype",
    "get_device_name",
    "get_device_properties",
    "get_rng_state",
    "get_rng_state_all",
    "init",
    "initial_seed",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "matmul",
    "max_memory_allocated",
    "max_memory_cached",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_cached",
    "memory_reserved",
    "memory_stats",
    "memory_summary",
    "random",
    "reset_max_memory_allocated",
    "reset_max_memory_cached",
    "reset_peak_memory_stats",
    "seed",
    "seed_all",
    "set_compile_mode",
    "set_device",
    "set_rng_state",
    "set_rng_state_all",
    "set_stream",
    "stream",
    "streams",
    "synchronize",
]


def __getattr__(name: str) -> tuple[torch.Generator, ...]:
    if name == "default_generators":
        # Computed on use: the generators need the "npu" device name registered first.
        return rng.default_generators()
    surface.missing("torch.npu", name)
