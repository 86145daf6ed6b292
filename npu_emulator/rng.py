"""Random number generators of the emulated cards.

Each card has its own default generator, separate from the CPU one, as on real hardware:
seeding the npu does not move the CPU stream and the other way round (``torch.manual_seed``
seeds both, through the device module's ``manual_seed_all``). The values drawn are the
CPU generator's, not what an NPU would draw; only the seeding semantics are emulated.

``torch.Generator(device="npu")`` gives a generator whose ``device`` is the npu; it draws
on the CPU like everything else here.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any

import torch

from npu_emulator import _torch, devices

_C_GENERATOR = torch._C.Generator
# The C descriptor behind Generator.device (reports "cpu" for ours).
_C_DEVICE: Any = vars(torch._C.Generator)["device"]


class _GeneratorType(type(torch._C.Generator)):  # type: ignore[misc]  # the C type's metaclass
    # Generators that PyTorch creates in C++ (torch.default_generator, ...) are of the
    # C type; isinstance(g, torch.Generator) must keep answering True for them.
    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, _C_GENERATOR)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, _C_GENERATOR)


class Generator(torch._C.Generator, metaclass=_GeneratorType):
    """``torch.Generator`` that also accepts ``device="npu"``."""

    def __new__(cls, device: Any = "cpu") -> Generator:
        target = torch.device(device) if isinstance(device, str) else device
        on_npu = isinstance(target, torch.device) and target.type == devices.DEVICE_TYPE
        # The C type's constructor takes the device (its stub declares it on __init__).
        gen: Generator = _C_GENERATOR.__new__(cls, device="cpu" if on_npu else device)  # type: ignore[call-arg]
        if on_npu:
            _mark(gen, devices.index_of(target))
        return gen

    @property
    def device(self) -> torch.device:  # type: ignore[override]  # an attribute in the stubs
        index = npu_index(self)
        if index is None:
            real: torch.device = _C_DEVICE.__get__(self)
            return real
        return devices.torch_device(index)


_DEFAULTS: dict[int, torch.Generator] = {}
# Which generators stand for an npu generator (they are CPU generators underneath), by
# the address of the C++ generator: the dispatcher hands kernels a fresh Python object
# for the same generator, so the Python object cannot be the key.
_NPU_GENERATORS: dict[int, tuple[weakref.ref[torch.Generator], int]] = {}


def _mark(gen: torch.Generator, index: int) -> None:
    _NPU_GENERATORS[_torch.generator_address(gen)] = (weakref.ref(gen), index)


def default_generator(index: int) -> torch.Generator:
    gen = _DEFAULTS.get(index)
    if gen is None:
        gen = _DEFAULTS[index] = Generator(devices.torch_device(index))
        gen.manual_seed(torch.initial_seed())
    return gen


def default_generators() -> tuple[torch.Generator, ...]:
    return tuple(default_generator(i) for i in range(devices.count()))


def npu_index(gen: torch.Generator) -> int | None:
    """The card a generator belongs to, or None for a plain CPU generator."""
    address = _torch.generator_address(gen)
    entry = _NPU_GENERATORS.get(address)
    if entry is None:
        return None
    owner, index = entry
    if owner() is None:  # freed, and the address reused by another generator
        del _NPU_GENERATORS[address]
        return None
    return index


@contextlib.contextmanager
def default_cpu_rng_as(index: int) -> Iterator[None]:
    """Run kernels that draw from the global CPU generator off card ``index``'s stream.

    A few aten kernels (``native_dropout``) take no generator argument and use the
    default generator of the device they run on, the CPU here.
    """
    cpu = torch.default_generator
    npu = default_generator(index)
    saved = cpu.get_state()
    cpu.set_state(npu.get_state())
    try:
        yield
        npu.set_state(cpu.get_state())
    finally:
        cpu.set_state(saved)


def install() -> None:
    torch.Generator = Generator  # type: ignore[misc]  # a class assigned over a class
