"""Turn this process into an emulated Ascend host."""

from __future__ import annotations

import threading

_LOCK = threading.RLock()
_STATE = {"installed": False, "installing": False}


def is_installed() -> bool:
    return _STATE["installed"]


def install() -> None:
    """Make this process an emulated Ascend host (idempotent).

    Registers the "npu" device, ``torch.npu`` and the emulated runtime, and puts the
    stand-in ``torch_npu`` / ``mx_driving`` packages on ``sys.path``. Child processes need
    :func:`npu_emulator.emulation_env` in their environment to be emulated too.

    Safe to call from torch's backend autoload, that is while ``import torch`` is still
    running; a nested call during installation returns at once.
    """
    # The first import of torch may run the stand-in's autoload entry point, which calls
    # install() and finishes the job inside that import; then there is nothing left.
    import torch  # noqa: F401

    with _LOCK:
        if _STATE["installed"] or _STATE["installing"]:
            return
        _STATE["installing"] = True
        try:
            _install()
            _STATE["installed"] = True
        finally:
            _STATE["installing"] = False


def _install() -> None:
    from npu_emulator.environment import put_stand_ins_on_path

    put_stand_ins_on_path()
    from npu_emulator import (
        accelerator,
        autocast,
        backend,
        cards,
        compiler,
        distributed,
        drift,
        npu,
        parameters,
        pinned,
        report,
        rng,
        serialization,
    )

    backend.register(npu)
    autocast.register()
    rng.install()
    parameters.install()
    pinned.install()
    serialization.install()
    drift.install()  # before accelerator.install() routes some of those names
    accelerator.install()
    cards.install()
    compiler.install()
    distributed.install()
    report.start()
