"""Autocast regions that name the CUDA device."""

from __future__ import annotations

import libcst as cst

from migrator.analysis.cst_helpers import find_arg, retarget_device, string_value, with_string_value
from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import FileView, Trigger
from migrator.core.model import FixAvailability

_DEVICE_AUTOCASTS = frozenset(
    {"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast"}
)
_FP32 = frozenset({"torch.float32", "torch.float"})
# torch's CUDA-only autocast state functions -> the device-type form (torch >= 2.4; in
# torch 2.7.1's `torch/_C/__init__.pyi`): (new name, number of arguments the old one takes).
_GPU_STATE = {
    "torch.get_autocast_gpu_dtype": ("get_autocast_dtype", 0),
    "torch.set_autocast_gpu_dtype": ("set_autocast_dtype", 1),
    "torch.is_autocast_enabled": ("is_autocast_enabled", 0),
    "torch.set_autocast_enabled": ("set_autocast_enabled", 1),
}
# The device-type forms: their first argument names the device.
_DEVICE_STATE = frozenset(
    {
        "torch.get_autocast_dtype",
        "torch.set_autocast_dtype",
        "torch.is_autocast_enabled",
        "torch.set_autocast_enabled",
    }
)


_ACTS_ON = _DEVICE_AUTOCASTS | _GPU_STATE.keys() | _DEVICE_STATE | {"torch.cuda.amp.autocast"}


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """It rewrites calls of these names only."""
    return not _ACTS_ON.isdisjoint(names)


class AutocastDevice(PythonRule):
    """Point `torch.autocast("cuda", ...)` regions at the NPU.

    What it does: in `torch.autocast(...)` and `torch.amp.autocast(...)` it rewrites the device
    argument `"cuda"` (first positional or `device_type=`) to the target device, and turns
    `torch.cuda.amp.autocast(...)` into `torch.npu.amp.autocast(...)`, keeping the file's own
    spelling of `torch` (`th.cuda.amp.autocast` becomes `th.npu.amp.autocast`). Matching is by
    qualified name, so aliases (`import torch as th`, `from torch import autocast as ac`) are
    found and a local variable or parameter named `torch` is not.

    Why: on an Ascend host `torch.cuda.is_available()` is False and an autocast region for
    "cuda" is disabled with a warning, so a bf16 backbone silently runs in fp32 (or crashes
    on a dtype mismatch against bf16 weights). The region must name "npu".

    fp32 regions: CUDA honours `autocast(..., dtype=torch.float32)`; CPU and some torch_npu
    versions accept only fp16/bf16 there and then silently disable the region, so code that
    relied on it to upcast now sees bf16 tensors. Such regions are rewritten and flagged
    *needs review*: check `torch.npu.get_amp_supported_dtype()` on the host and, if float32
    is missing, cast explicitly (`.float()`) where the region's outputs must be fp32.

    Autocast state: `torch.get_autocast_gpu_dtype()`, `torch.set_autocast_gpu_dtype(d)`,
    and `torch.is_autocast_enabled()` / `torch.set_autocast_enabled(b)` without a device
    ask about CUDA's autocast region (attention code picks its input dtype from them); they
    become the device-type forms torch has had since 2.4 (`torch.get_autocast_dtype("npu")`,
    `torch.is_autocast_enabled("npu")`, ...), and a "cuda" passed to those forms becomes
    "npu". Without the change the query reads a CUDA region that is never on, so a bf16
    region on the NPU is taken for none.

    Left alone: a device given as a variable or expression (`device.type`, `self.device`),
    strings that are not the device argument (log text, docstrings, comments) and already
    migrated regions.

    Safety: safe, except fp32 regions (needs review).
    """

    code = "NPU001"
    action = "port-code"
    fix_availability = FixAvailability.ALWAYS
    name = "autocast-device"
    summary = 'Autocast regions for "cuda" (torch.autocast, torch.cuda.amp.autocast) to the NPU.'
    # It decides at each call from the call alone, whose line spells autocast (or an alias).
    trigger = Trigger(tokens=("autocast",), names=_names_gate, local=True)
    examples = (
        Example(
            'import torch\nwith torch.autocast("cuda", dtype=torch.bfloat16):\n    y = model(x)\n',
            'import torch\nwith torch.autocast("npu", dtype=torch.bfloat16):\n    y = model(x)\n',
        ),
        Example(
            "import torch as th\nwith th.cuda.amp.autocast():\n    y = model(x)\n",
            "import torch as th\nwith th.npu.amp.autocast():\n    y = model(x)\n",
        ),
        Example(
            'from torch import autocast as ac\nwith ac(device_type="cuda"):\n    pass\n',
            'from torch import autocast as ac\nwith ac(device_type="npu"):\n    pass\n',
        ),
        Example(
            'def f(torch):\n    with torch.autocast("cuda"):\n        pass\n',
            None,
        ),
        Example(
            'import torch\nprint("autocast on cuda")\n'
            "with torch.autocast(device.type):\n    pass\n",
            None,
        ),
    )

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        name = self.qualname(original_node.func)
        if name in _DEVICE_AUTOCASTS:
            return self._device_argument(original_node, updated_node)
        if name in _GPU_STATE and len(original_node.args) == _GPU_STATE[name][1]:
            return self._gpu_state(original_node, updated_node, name)
        if name in _DEVICE_STATE:
            return self._device_argument(original_node, updated_node, state=True)
        if name == "torch.cuda.amp.autocast" and isinstance(updated_node.func, cst.Attribute):
            return self._cuda_amp(original_node, updated_node)
        return updated_node

    def _is_fp32(self, call: cst.Call) -> bool:
        dtype = find_arg(call, 1, "dtype")
        return dtype is not None and self.qualname(dtype.value) in _FP32

    def _fp32_note(self) -> str:
        device = self.target.device_type
        return (
            "; fp32 autocast: CUDA honours it, some torch_npu versions silently disable it "
            f"(only fp16/bf16): check torch.{device}.get_amp_supported_dtype() on the host "
            "and cast with .float() where outputs must be fp32"
        )

    def _gpu_state(self, original: cst.Call, updated: cst.Call, name: str) -> cst.Call:
        """`torch.get_autocast_gpu_dtype()` -> `torch.get_autocast_dtype("npu")`: the old
        forms (and `is_autocast_enabled()` without a device) ask about CUDA's autocast."""
        new_name, _ = _GPU_STATE[name]
        device = self.target.device_type
        func = updated.func
        if not isinstance(func, cst.Attribute) or any(a.keyword for a in updated.args):
            self.warn(
                original,
                f"{name}() asks about the {self.target.source_device_type} autocast region",
                f'call torch.{new_name}("{device}"{", ..." if updated.args else ""})',
            )
            return updated
        device_arg = cst.Arg(cst.SimpleString(f'"{device}"'))
        args = [device_arg]
        if updated.args:
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            args = [device_arg.with_changes(comma=comma), *updated.args]
        replacement = updated.with_changes(
            func=func.with_changes(attr=cst.Name(new_name)), args=args
        )
        rest = ", ..." if updated.args else ""
        message = (
            f'{name}() -> torch.{new_name}("{device}"{rest}): the old form asks about the '
            f"{self.target.source_device_type} autocast region"
        )
        return self.edit(original, updated, replacement, message)

    def _device_argument(
        self, original: cst.Call, updated: cst.Call, *, state: bool = False
    ) -> cst.Call:
        arg = find_arg(updated, 0, "device_type")
        if arg is None:
            return updated
        value = string_value(arg.value)
        if value is None:
            return updated
        new_value = retarget_device(value, self.target.source_device_type, self.target.device_type)
        if new_value is None or not isinstance(arg.value, cst.SimpleString):
            return updated
        fp32 = self._is_fp32(original)
        new_arg = arg.with_changes(value=with_string_value(arg.value, new_value))
        replacement = updated.with_changes(args=[new_arg if a is arg else a for a in updated.args])
        message = f'autocast device "{value}" -> "{new_value}"'
        if state:
            return self.edit(original, updated, replacement, message)
        if fp32:
            message += self._fp32_note()
        return self.edit(original, updated, replacement, message, review=fp32 or None)

    def _cuda_amp(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        func = updated.func
        assert isinstance(func, cst.Attribute)
        amp = func.value
        if not isinstance(amp, cst.Attribute) or not isinstance(amp.value, cst.Attribute):
            return updated
        cuda = amp.value
        if cuda.attr.value != self.target.source_device_type:
            return updated
        device = self.target.device_type
        new_cuda = cuda.with_changes(attr=cuda.attr.with_changes(value=device))
        new_func = func.with_changes(value=amp.with_changes(value=new_cuda))
        fp32 = self._is_fp32(original)
        message = f"torch.cuda.amp.autocast -> torch.{device}.amp.autocast"
        if fp32:
            message += self._fp32_note()
        return self.edit(
            original, updated, updated.with_changes(func=new_func), message, review=fp32 or None
        )
