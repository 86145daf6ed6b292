"""Random-state functions of ``torch.npu``, backed by one generator per card."""

from __future__ import annotations

import torch

from npu_emulator import devices, rng

Device = int | str | torch.device | None


def manual_seed(seed: int) -> None:
    rng.default_generator(devices.current()).manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    for gen in rng.default_generators():
        gen.manual_seed(int(seed))


def seed() -> None:
    rng.default_generator(devices.current()).seed()


def seed_all() -> None:
    value = rng.default_generator(devices.current()).seed()
    manual_seed_all(value)


def initial_seed() -> int:
    return rng.default_generator(devices.current()).initial_seed()


def get_rng_state(device: Device = "npu") -> torch.Tensor:
    return rng.default_generator(devices.index_of(device)).get_state()


def set_rng_state(new_state: torch.Tensor, device: Device = "npu") -> None:
    rng.default_generator(devices.index_of(device)).set_state(new_state.cpu())


def get_rng_state_all() -> list[torch.Tensor]:
    return [gen.get_state() for gen in rng.default_generators()]


def set_rng_state_all(new_states: list[torch.Tensor]) -> None:
    for index, state in enumerate(new_states):
        set_rng_state(state, index)
