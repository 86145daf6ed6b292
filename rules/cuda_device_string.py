"""Device strings ("cuda", "cuda:1", f"cuda:{rank}") where the code uses them as a device."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from migrator.analysis.cst_helpers import (
    AUTOCAST_CALLS,
    GRAD_SCALER_CALLS,
    device_literal,
    find_arg,
    is_device_name,
    retarget_device,
    string_value,
)
from migrator.contract.rule import Example, TokenPattern
from migrator.contract.string_positions import StringPositionRule
from migrator.core.model import FixAvailability
from migrator.core.target import Target

# Callees whose positional argument at this index is a device.
_DEVICE_ARGUMENT = {
    "torch.device": 0,
    "torch.Generator": 0,
    "torch.load": 1,
    "torch.set_default_device": 0,
}


class CudaDeviceString(StringPositionRule):
    """Point device strings at the NPU where the code uses them as a device.

    What it does: rewrites `"cuda"`, `"cuda:N"` and their spelled-out forms (`f"cuda:{rank}"`,
    `"cuda:" + str(rank)`, `"cuda:{}".format(rank)`, `"cuda:%d" % rank`) to the target device
    (`"npu"`, `"npu:N"`, `f"npu:{rank}"`), in place and keeping the quotes, but only where the
    string reaches a device position:

    - device arguments: `torch.device("cuda", i)` / `torch.device(type="cuda")`,
      `torch.Generator("cuda")`, `torch.load(f, "cuda")`, `torch.set_default_device("cuda")`,
      `.to("cuda")` on any receiver, `.cuda("cuda:1")`, the first argument of a `torch.cuda.*`
      API, and the positional arguments of a call whose name holds "device" (`set_device`,
      `get_device_module`, `init_device_mesh`, `to_device(batch, "cuda")`);
    - keywords of any call named `map_location` or holding "device" (`device=`, `device_map=`,
      `device_type=`, `onload_device=`, `torch_device=`); in a dict given there only the values
      change (a `map_location` dict's keys say where tensors were saved);
    - settings found by name: the target of an assignment, annotated field (also through
      `field(default=...)`), parameter default, dict entry, command-line option
      (`add_argument("--device", default=..., choices=[...])`, click's `option`),
      `getattr(x, "device", ...)` / `kw.get("device", ...)` default, or the function whose
      `return` it is, holds "device" (or is `dev`) in any case: `device`, `DEVICE`,
      `self.device`, `cfg["device"]`, `device: str = "cuda"`, `def get_device(): return ...`;
    - comparisons with an operand so named: `device_type == "cuda"`, `x.device.type != "cuda"`,
      `"cuda" in str(device)`, `device in ("cuda", "cpu")`, `str(device).startswith("cuda")`,
      so code that decides on its own (`fused = available and device_type == "cuda"`) follows.

    Behind `a if c else b`, `a or b`, lists, tuples and comprehensions only the literals change:
    `device = "cuda" if torch.cuda.is_available() else "cpu"` keeps its condition (NPU012
    rewrites `torch.cuda.is_available`). A collection that already names the target
    (`device in ("cuda", "npu")`) is left alone.

    Why: on an Ascend host `"cuda"` names a device that does not exist: `torch.device("cuda")`
    objects and `.to("cuda")` fail, `device_type == "cuda"` is never true, so fused kernels,
    autocast and seeding branches silently take their CPU path. `transfer_to_npu` patches the
    device argument of some factories and `.to` at run time, but not settings, defaults,
    argparse choices or comparisons.

    Example: `model.to("cuda")` -> `model.to("npu")`; `def load(device: str = "cuda")` ->
    `def load(device: str = "npu")`.

    Left alone: log text, docstrings, comments and strings in any other position; device
    expressions that are not literals (`tensor.device`, a `device` variable,
    `next(model.parameters()).device`). The device argument of an autocast region is NPU001's
    when it is a plain string (this rule takes the other spellings there), and GradScaler's is
    NPU013's.

    Safety: safe. Caveat: positions found by name miss a device held in a variable whose name
    does not say so (`d = "cuda"`); a device string handed to an unrelated API that is named
    like a device would be rewritten too.
    """

    code = "NPU010"
    fix_availability = FixAvailability.ALWAYS
    name = "cuda-device-string"
    summary = (
        'Device strings "cuda", "cuda:N", f"cuda:{i}" in device positions to the target device.'
    )
    # Every device string it rewrites is a quoted literal starting with "cuda", on a line
    # of code: doctest lines (`>>> pipe.to("cuda")` in docstrings) are not candidates.
    tokens = ()
    token_patterns = (TokenPattern("cuda", r"""(?m:^(?![ \t]*(?:>>>|\.\.\.))[^\n]*["']cuda)"""),)

    @classmethod
    def may_act_on_ast(cls, statement: ast.stmt, target: Target) -> bool:
        # Every literal it rewrites starts with the source device ("cuda", "cuda:0",
        # f"cuda:{i}"); docstrings and log text that merely mention it do not.
        source = target.source_device_type
        return any(
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith(source)
            for node in ast.walk(statement)
        )

    kind = "device"
    examples = (
        Example(
            'model.to("cuda")\nx = torch.zeros(3, device="cuda:0")\n',
            'model.to("npu")\nx = torch.zeros(3, device="npu:0")\n',
        ),
        Example(
            'device = "cuda" if torch.cuda.is_available() else "cpu"\n'
            'def load(path, device: str = "cuda"):\n    return torch.device(f"cuda:{rank}")\n',
            'device = "npu" if torch.cuda.is_available() else "cpu"\n'
            'def load(path, device: str = "npu"):\n    return torch.device(f"npu:{rank}")\n',
        ),
        Example(
            'fused = available and device_type == "cuda"\n',
            'fused = available and device_type == "npu"\n',
        ),
        Example('print("running on cuda")\nmode = "cuda"\nx = x.to(tensor.device)\n', None),
    )

    def literal(
        self, node: cst.BaseExpression, *, prefix: bool = False
    ) -> tuple[cst.SimpleString | cst.FormattedString, str] | None:
        return device_literal(
            node, self.target.source_device_type, self.target.device_type, prefix=prefix
        )

    def names_thing(self, name: str) -> bool:
        return is_device_name(name)

    def is_target_literal(self, node: cst.BaseExpression) -> bool:
        value = string_value(node)
        device = self.target.device_type
        return value is not None and retarget_device(value, device, device) is not None

    def skips_call(self, call: cst.Call) -> bool:
        name = self.qualname(call.func)
        return name in AUTOCAST_CALLS or name in GRAD_SCALER_CALLS

    def call_positions(self, call: cst.Call) -> Iterator[cst.BaseExpression]:
        name = self.qualname(call.func)
        source, device = self.target.source_device_type, self.target.device_type
        if name in AUTOCAST_CALLS:
            # NPU001 rewrites a plain string there; other spellings are left to this rule.
            arg = find_arg(call, 0, "device_type")
            if arg is not None and string_value(arg.value) is None:
                yield arg.value
            return
        if name in GRAD_SCALER_CALLS:
            return
        positions: list[cst.Arg | None] = [find_arg(call, None, "map_location")]
        if name in _DEVICE_ARGUMENT:
            positions.append(find_arg(call, _DEVICE_ARGUMENT[name], None))
        if name == "torch.device":
            positions.append(find_arg(call, None, "type"))
        if name is not None and name.startswith((f"torch.{source}.", f"torch.{device}.")):
            positions.append(find_arg(call, 0, None))
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("to", source, device):
            positions.append(find_arg(call, 0, None))
        for arg in positions:
            if arg is not None:
                yield arg.value
