"""mmcv's CUDA model wrappers: MMDataParallel / MMDistributedDataParallel."""

from __future__ import annotations

import libcst as cst

from migrator.contract.rule import Example, PythonRule
from migrator.contract.trigger import FileView, TokenPattern, Trigger
from migrator.core.model import Safety

# Qualified name of mmcv's wrapper -> (the module it is imported from by name, the name of
# its twin for a device, after the device's upper-case prefix).
_WRAPPERS = {
    "mmcv.parallel.MMDataParallel": ("mmcv.parallel", "DataParallel"),
    "mmcv.parallel.data_parallel.MMDataParallel": ("mmcv.parallel.data_parallel", "DataParallel"),
    "mmcv.parallel.MMDistributedDataParallel": ("mmcv.parallel", "DistributedDataParallel"),
    "mmcv.parallel.distributed.MMDistributedDataParallel": (
        "mmcv.parallel.distributed",
        "DistributedDataParallel",
    ),
}


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """It rewrites calls of mmcv's wrappers only (not torch's `DataParallel`)."""
    return not names.isdisjoint(_WRAPPERS)


# Devices for which mmcv ships both wrappers (`mmcv.device.npu`, `mmcv.device.mlu`).
_MMCV_DEVICES = frozenset({"npu", "mlu"})
# The first mmcv release with `mmcv.device.npu`.
_FIRST = "1.7.0"
_PROBE = "1.7.2"


class MmcvDataParallel(PythonRule):
    """Wrap models in mmcv's NPU wrappers: `MMDataParallel(...)` ->
    `mmcv.device.npu.NPUDataParallel(...)`, `MMDistributedDataParallel(...)` ->
    `NPUDistributedDataParallel(...)`.

    What it does: a call of mmcv's `MMDataParallel` / `MMDistributedDataParallel` (found by
    qualified name: `from mmcv.parallel import MMDataParallel as DP`, `mmcv.parallel.X`)
    calls the NPU wrapper of the same arguments instead, imported as `from mmcv.device.npu
    import NPUDataParallel`; the old import goes when nothing else uses it. The arguments
    stay as written: `model.cuda()` and `device_ids=[torch.cuda.current_device()]` are
    the other device rules' (NPU011, NPU012).

    Why: mmcv's wrappers scatter each batch to CUDA devices (`scatter_kwargs` with CUDA
    device ids, `torch.cuda.set_device`), which `transfer_to_npu` does not reach inside
    mmcv's compiled scatter; mmcv 1.7 added NPU twins that scatter to the NPU and set the NPU
    device. The hand ports of mmcv projects make exactly this change.

    Left alone: a project that already imports `mmcv.device.npu` (it chose its wrappers);
    code in a branch that already handles the NPU (NPU077 reports it).

    Example: `model = MMDataParallel(model.cuda(0), device_ids=[0])` ->
    `model = NPUDataParallel(model.cuda(0), device_ids=[0])`.

    Safety: needs review where the project's mmcv pin excludes mmcv 1.7 (`mmcv-full==1.4.0`
    in an install doc) or no pin is found: `mmcv.device.npu` exists from mmcv 1.7.0, so the
    host needs mmcv 1.7.x (the message says which pin). Safe otherwise.
    """

    code = "NPU021"
    name = "mmcv-data-parallel"
    summary = "mmcv's MMDataParallel / MMDistributedDataParallel -> mmcv.device.npu's wrappers."
    safety = Safety.SAFE
    # Every name it rewrites (`_WRAPPERS`) is bound by an import that says "mmcv".
    trigger = Trigger(
        tokens=("DataParallel",),
        needs=(TokenPattern("mmcv", "mmcv"),),
        names=_names_gate,
        local=True,
    )
    action = "port-code"
    examples = (
        Example(
            "from mmcv.parallel import MMDataParallel\n"
            "model = MMDataParallel(model, device_ids=[0])\n",
            "from mmcv.device.npu import NPUDataParallel\n\nmodel = NPUDataParallel(model, "
            "device_ids=[0])\n",
        ),
        Example(
            "from mmcv.parallel import MMDistributedDataParallel as DDP\nm = DDP(model)\n",
            "from mmcv.device.npu import NPUDistributedDataParallel\n\n"
            "m = NPUDistributedDataParallel(model)\n",
        ),
        Example("class MMDataParallel:\n    pass\nm = MMDataParallel(model)\n"),
    )

    def _pin_problem(self, npu_module: str) -> str | None:
        """Why the project's mmcv may lack `mmcv.device.npu`, if it may."""
        pins = [*self.ctx.project.pins_of("mmcv-full"), *self.ctx.project.pins_of("mmcv")]
        if not pins:
            return f"no mmcv pin found: {npu_module} needs mmcv >= {_FIRST}"
        for pin in pins:
            if not pin.allows(_PROBE):
                return (
                    f"the project pins {pin.name}{pin.specifier} ({pin.path}:{pin.line}), "
                    f"older than {_FIRST}, which added {npu_module}: install mmcv 1.7.x"
                )
        return None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        found = _WRAPPERS.get(self.qualname(original_node.func) or "")
        device = self.target.device_type
        npu_module = f"mmcv.device.{device}"
        if (
            found is None
            or device not in _MMCV_DEVICES
            or self.ctx.project.imports_package(npu_module)
        ):
            return updated_node
        module, suffix = found
        wrapper = device.upper() + suffix
        local = self.local_name_for(f"{npu_module}.{wrapper}")
        if local is None:
            if self.is_bound(wrapper):
                self.warn(
                    original_node,
                    f"mmcv's CUDA wrapper: {wrapper} is another name in this file",
                    f"wrap the model in {npu_module}.{wrapper}",
                )
                return updated_node
            local = wrapper
            self.add_import(npu_module, wrapper)
        func = original_node.func
        if isinstance(func, cst.Name):
            old = self.resolve_name(func.value) or ""
            old_name = old.rsplit(".", 1)[-1]
            alias = func.value if func.value != old_name else None
            self.remove_import(module, old_name, alias)
        problem = self._pin_problem(npu_module)
        message = f"mmcv's CUDA wrapper -> {npu_module}.{wrapper}"
        if problem is not None:
            message += f" ({problem})"
        replacement = updated_node.with_changes(func=cst.Name(local))
        return self.edit(
            original_node, updated_node, replacement, message, review=problem is not None
        )
