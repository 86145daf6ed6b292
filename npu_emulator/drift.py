"""The project's own uses of torch names newer than the host's torch fail as on the host.

The emulator runs on this machine's torch; a host runs the torch its torch-npu release is
built for (torch 2.7.1 for 2.7.1.postN). A name added to torch later
(``torch.accelerator.device_index``, ``torch.accelerator.memory``) works here and raises
``AttributeError`` there. Under the emulator, such a name of a module whose public names
the API data records (``GUARDED``: torch 2.7.1's, read from the released wheel), used
from the project's own files, raises that ``AttributeError``, naming the file and line.

Libraries (anything under ``site-packages``, the interpreter's prefix, torch itself, this
emulator) are left alone: accelerate, DeepSpeed and transformers pick their code paths by
the torch version they see, so on the host they take the old paths that this machine's
torch makes them skip. The project's files are those under ``NPU_MIGRATOR_EMULATE_PROJECT``
(default: the working directory, plus the script's folder under ``python -m npu_emulator``).

Only attribute look-ups are checked (``from torch.accelerator import device_index`` too),
not new keyword arguments of old functions; ``from torch.accelerator import memory`` of a
submodule that torch has already imported still works. A host release built for a torch
the data does not describe (2.14.0) is not checked.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import sys
import types
from collections.abc import Callable
from pathlib import Path

import torch

from npu_emulator import releases, report, settings

#: The torch modules whose public names the data records completely (as NPU078 checks).
GUARDED = ("torch.accelerator", "torch.amp", "torch.cuda", "torch.cuda.amp")

_EMULATOR = Path(__file__).resolve().parent
_LIBRARY_FOLDERS = frozenset({"site-packages", "dist-packages"})


def _roots() -> list[Path]:
    raw = os.environ.get(settings.ENV_PROJECT, "")
    found = [Path(p).resolve() for p in raw.split(os.pathsep) if p]
    return found or [Path.cwd().resolve()]


def _not_project() -> list[Path]:
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    torch_home = Path(torch.__file__).resolve().parent
    return [*(Path(p).resolve() for p in prefixes), torch_home, _EMULATOR]


@functools.cache
def is_project_file(filename: str) -> bool:
    """Whether code in ``filename`` (a code object's ``co_filename``) is the project's own."""
    if filename.startswith("<"):  # "<string>", "<frozen importlib._bootstrap>"
        return False
    path = Path(filename).resolve()  # a relative one (the script's) from the working dir
    if _LIBRARY_FOLDERS & set(path.parts):
        return False
    if any(path.is_relative_to(folder) for folder in _not_project()):
        return False
    return any(path.is_relative_to(root) for root in _roots())


def _is_api(module: types.ModuleType, value: object) -> bool:
    """A submodule or a callable of torch's: not ``os``, ``Any`` or a constant it imported."""
    if inspect.ismodule(value):
        return value.__name__.startswith(module.__name__ + ".")
    module_of = getattr(value, "__module__", None) or ""
    return callable(value) and module_of.split(".")[0] == "torch"


def newer_names(module: types.ModuleType, host: frozenset[str]) -> frozenset[str]:
    """The public names of ``module`` here that the host's torch does not have."""
    return frozenset(
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and name not in host and _is_api(module, value)
    )


def _fail(module: str, name: str, host_torch: str, frame: types.FrameType) -> None:
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    report.note("host_torch_lacks_name")
    raise AttributeError(
        f"module {module!r} has no attribute {name!r} (npu emulator: the host's torch "
        f"{host_torch} lacks {module}.{name}, used at {where}; this machine's torch "
        f"{torch.__version__} has it)"
    )


def _guarded_class(module: str, absent: frozenset[str], host_torch: str) -> type[types.ModuleType]:
    get: Callable[[types.ModuleType, str], object] = types.ModuleType.__getattribute__

    class HostTorchModule(types.ModuleType):
        def __getattribute__(self, name: str) -> object:
            if name in absent:
                caller = sys._getframe(1)
                if is_project_file(caller.f_code.co_filename):
                    _fail(module, name, host_torch, caller)
            return get(self, name)

    return HostTorchModule


def install() -> None:
    """Guard the modules of ``GUARDED`` (before the emulator sets names of its own on them)."""
    host_torch = releases.host_torch()
    if torch.__version__.split("+")[0] == host_torch:
        return
    for name in GUARDED:
        host = releases.torch_names(name)
        if host is None:
            return
        module = importlib.import_module(name)
        absent = newer_names(module, host)
        if absent and type(module) is types.ModuleType:
            module.__class__ = _guarded_class(name, absent, host_torch)
