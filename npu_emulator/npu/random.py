"""``torch.npu.random``: the random-state functions under their submodule name.

torch_npu has this submodule as torch.cuda has ``torch.cuda.random``; the transformers
Trainer saves and restores the RNG state through ``torch.npu.random`` at every
checkpoint on an NPU.
"""

from __future__ import annotations

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

__all__ = [
    "get_rng_state",
    "get_rng_state_all",
    "initial_seed",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "set_rng_state",
    "set_rng_state_all",
]
