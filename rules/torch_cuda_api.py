"""`torch.cuda.<api>` device, memory, stream and random-number APIs."""

from __future__ import annotations

import ast

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.ast_lines import nodes_of
from migrator.analysis.capability_gates import CAPABILITY_APIS, answers_false, capability_read
from migrator.analysis.cst_helpers import attribute_chain, dotted_name, find_arg, string_value
from migrator.contract.rule import Example, PythonRule, RuleContext, TokenPattern
from migrator.contract.trigger import FileView, Trigger

# Reported by other rules (NVTX ranges, CUDA graphs): skipped here without a word.
_OTHER_RULES = frozenset(
    {"nvtx", "graph", "graphs", "CUDAGraph", "make_graphed_callables", "graph_pool_handle"}
)
# `torch.cuda.amp.<name>` owned by other rules: autocast (NPU001), GradScaler (NPU013).
_AMP_OTHER_RULES = frozenset({"autocast", "GradScaler"})
# torch's name for a stream's raw handle (torch_npu's streams call it `npu_stream`); the
# target's name is spelled the same way from its device type.
_STREAM_HANDLE = "cuda_stream"
_SCALER = "GradScaler"


def _replace_in_chain(
    node: cst.BaseExpression, old: cst.BaseExpression, new: cst.BaseExpression
) -> cst.BaseExpression:
    if node is old:
        return new
    if isinstance(node, cst.Attribute):
        return node.with_changes(value=_replace_in_chain(node.value, old, new))
    return node


def _and_operands(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of `a and b and c` (nested `and`s flattened)."""
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
        return _and_operands(node.left) + _and_operands(node.right)
    return [node]


def _stream_handle_facts(tree: ast.Module, text: str) -> object:
    """Whether the module sets or defines an attribute named like the raw stream handle
    itself (`self.cuda_stream = torch.cuda.Stream()`): then `.cuda_stream` is its own."""
    targets: list[ast.expr] = []
    kinds = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in nodes_of(tree, kinds):
        if isinstance(node, ast.Assign):
            targets += node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets.append(node.target)
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name == _STREAM_HANDLE
        ):
            return True
    return any(
        isinstance(inner, ast.Attribute) and inner.attr == _STREAM_HANDLE
        for target in targets
        for inner in ast.walk(target)
    )


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """A region none of whose qualified names (and imports) starts with `torch.cuda` holds
    nothing this rule rewrites or reports: every edit and warning is at a name under it,
    an import of one, or a device table whose "cuda" entry names one (`_mentions_source`
    reads a prefix: `torch.cuda_graph_pool` counts), unless the file spells the raw
    stream handle (`cuda_stream`, an attribute of any receiver, written `s. cuda_stream`
    too). torch's `overrides.py` keys one 1,400-line table by `Tensor.cuda` and the like:
    it was parsed whole for this rule and held nothing."""
    source = view.target.source_device_type
    prefix = f"torch.{source}"
    return any(name.startswith(prefix) for name in names) or f"{source}_stream" in view.text


class TorchCudaApi(PythonRule):
    """Move `torch.cuda.<api>` to the target's device module (`torch.npu.<api>`).

    What it does: for every api in the target's list (device management, memory statistics,
    random numbers, streams and events, `is_bf16_supported`, the `amp` module with
    `custom_fwd`/`custom_bwd`) it rewrites calls and plain references, in expressions,
    decorators and annotations, keeping the file's spelling of torch:
    `th.cuda.synchronize()` -> `th.npu.synchronize()`. The import forms:

    - `from torch.cuda import X, Y` and `from torch.cuda.amp import X` -> `from torch.npu
      import X, Y` / `from torch.npu.amp import X` when every name has a counterpart; an
      import that mixes such names with others is reported (split it) and left as it is;
    - `from torch import cuda` and `import torch.cuda as tc` stay (the name may still serve
      APIs without a counterpart); each known use `tc.synchronize()` becomes
      `torch.npu.synchronize()` through the file's own name for torch;
    - `import torch.cuda` stays (it only binds `torch`); `import torch.cuda.amp as amp` ->
      `import torch.npu.amp as amp`.

    `torch.npu` exists once torch_npu is imported, which the migrated entry point does first.

    Why: without CUDA, `torch.cuda.synchronize()`, `torch.cuda.set_device()` and the memory
    APIs raise or report a device that is not there, and `torch.cuda.is_available()` is
    False, so code falls back to the CPU. torch_npu mirrors these APIs under `torch.npu`.

    Example: `torch.cuda.empty_cache()` -> `torch.npu.empty_cache()`;
    `@torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)` -> `@torch.npu.amp.custom_fwd(...)`.

    `torch.cuda` used as a module object becomes `torch.npu`: safe as the fallback of
    `getattr(torch, device_type, torch.cuda)`, flagged for review elsewhere (check that what
    is used from it exists there). A table keyed by device names keeps its `"cuda"` entry
    (`{"cuda": torch.cuda.empty_cache, "xpu": ...}` is CUDA's own entry); if it has no
    `"npu"` entry it is reported.

    `stream.cuda_stream` (the raw handle of a torch stream, passed to NCCL or a kernel
    library through ctypes) becomes `stream.npu_stream`, torch_npu's name for it (checked in
    torch-npu 2.7.1.post2's `torch_npu/npu/streams.py`), flagged for review: the handle
    must now go to an NPU API. Left alone where the module sets an attribute of that name
    itself (`self.cuda_stream = torch.cuda.Stream()`) or reads it from `self`.

    Reported, not rewritten: `torch.cuda.X` without a known counterpart (the warning says
    that `transfer_to_npu` may still map it at run time). Left to other rules:
    `torch.cuda.amp.autocast` (NPU001), `torch.cuda.amp.GradScaler` (NPU013), NVTX and CUDA
    graphs (`torch.cuda.nvtx`, `torch.cuda.graph`, `CUDAGraph`, `make_graphed_callables`),
    capability gates (`get_device_capability`, `get_device_properties(i).major` / `.minor`,
    `torch.cuda.nccl`, and a `torch.cuda.is_available()` `and`-ed with a gate that stays
    off on the NPU: NPU018).
    A parameter or local named `torch` is not the module and is left alone.

    Safety: safe; bare module references outside a `getattr` fallback need review.
    """

    code = "NPU012"
    action = "port-code"
    name = "torch-cuda-api"
    summary = "`torch.cuda.<api>` calls, references and imports to the target's device module."
    # `torch.cuda` (aliases of torch and of torch.cuda follow) and any other `.cuda`
    # attribute that is not a call (a device table is reported only when its "cuda" entry
    # uses one).
    trigger = Trigger(
        tokens=("torch.cuda",),
        # It reads names only (attributes, imports; a device table's "cuda" key counts
        # only with a value that spells torch.cuda): not `"from torch.cuda import nvtx"`
        # in a string of generated code.
        words=True,
        patterns=(
            TokenPattern(".cuda", r"\.cuda\b(?!\s*\()"),
            TokenPattern(".cuda_stream", r"\.cuda_stream\b"),
        ),
        facts=_stream_handle_facts,
        names=_names_gate,
        # What it rewrites or warns at spells torch.cuda, .cuda or .cuda_stream (or an
        # import alias of them) on a line of its own statement.
        local=True,
        elements=True,
    )
    examples = (
        Example(
            "import torch as th\nth.cuda.synchronize()\nn = th.cuda.device_count()\n",
            "import torch as th\nth.npu.synchronize()\nn = th.npu.device_count()\n",
        ),
        Example(
            "from torch.cuda import empty_cache, max_memory_allocated\n",
            "from torch.npu import empty_cache, max_memory_allocated\n",
        ),
        Example("def f(torch):\n    torch.cuda.synchronize()\n", None),
        Example('import torch\nprint("torch.cuda.synchronize() done")\n', None),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._rewrites: dict[int, tuple[cst.CSTNode, str, bool]] = {}
        self._fallbacks: set[int] = set()
        # `torch.cuda.X` nodes that belong to a capability gate (NPU018's).
        self._gates: set[int] = set()
        # `.cuda_stream` handles being renamed (their receivers may change too).
        self._handles: set[int] = set()
        # Imports from torch.cuda.amp whose GradScaler moved to an import of its own.
        self._scaler_moves: dict[int, str] = {}

    # Where an api goes --------------------------------------------------------------
    def _source(self) -> str:
        return f"torch.{self.target.source_device_type}"

    def _known(self, api: str) -> bool:
        return api in self.target.device_apis

    def _owned_elsewhere(self, parts: list[str]) -> bool:
        if parts[0] in _OTHER_RULES or parts[0] in CAPABILITY_APIS:
            return True
        return parts[0] == "amp" and len(parts) > 1 and parts[1] in _AMP_OTHER_RULES

    def _unknown(self, node: cst.CSTNode, api: str) -> None:
        device = self.target.device_type
        self.warn(
            node,
            f"{self._source()}.{api} has no known torch.{device} counterpart",
            f"check the {self.target.runtime_module} API for an equivalent; "
            f"{self.target.safety_net_module} may still map it at run time",
        )

    # Imports ------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        amp = f"{self._source()}.amp"
        device_amp = f"torch.{self.target.device_type}.amp"
        rename = {self.target.source_device_type: self.target.device_type}
        names = [
            alias.with_changes(name=attribute_chain(alias.name, rename, 0))
            if dotted_name(alias.name) == amp and alias.asname is not None
            else alias
            for alias in updated_node.names
        ]
        if all(new is old for new, old in zip(names, updated_node.names, strict=True)):
            return updated_node
        replacement = updated_node.with_changes(names=names)
        return self.edit(original_node, updated_node, replacement, f"{amp} -> {device_amp}")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return False
        module = dotted_name(node.module)
        source = self._source()
        if module not in (source, f"{source}.amp"):
            return False
        names = [dotted_name(alias.name) or "" for alias in node.names]
        prefix = [] if module == source else ["amp"]
        original = node
        if prefix and _SCALER in names:
            rest = self._scaler_import(node, module)
            if rest is None:
                return False
            assert not isinstance(rest.names, cst.ImportStar) and rest.module is not None
            node = rest
            names = [dotted_name(alias.name) or "" for alias in rest.names]
        # Other names of torch.cuda.amp move with their module (torch.npu.amp has the same
        # names); only a name of torch.cuda itself can belong to another rule
        # (`from torch.cuda import graph` stays with the CUDA-graph rule).
        elsewhere = [n for n in names if not prefix and self._owned_elsewhere([n])]
        known = [n for n in names if n not in elsewhere and self._known([*prefix, n][0])]
        unknown = [n for n in names if n not in known and n not in elsewhere]
        for name in unknown:
            self._unknown(original, ".".join([*prefix, name]))
        if known and len(known) < len(names):
            self.warn(
                original,
                f"this import mixes {source} names that have a torch.{self.target.device_type} "
                f"counterpart ({', '.join(known)}) with others; left as it is",
                f"import {', '.join(known)} from "
                f"torch.{self.target.device_type}{'.amp' if prefix else ''} on a line of its own",
            )
        elif known:
            assert node.module is not None
            new_module = attribute_chain(
                node.module, {self.target.source_device_type: self.target.device_type}, 0
            )
            assert isinstance(new_module, (cst.Attribute, cst.Name))
            message = (
                f"from {module} import -> from "
                f"torch.{self.target.device_type}{module[len(source) :]} import"
            )
            self._rewrites[id(original)] = (node.with_changes(module=new_module), message, False)
        return False

    def _scaler_import(self, node: cst.ImportFrom, module: str) -> cst.ImportFrom | None:
        """`from torch.cuda.amp import GradScaler` -> `from torch.amp import GradScaler`:
        torch's own scaler, the current API (torch.npu.amp's is deprecated and breaks fused
        optimizers at `scaler.step()`); NPU013 then gives its calls the device. Beside other
        names, GradScaler gets an import of its own and the rest is returned to move on;
        None when GradScaler was the only name."""
        assert not isinstance(node.names, cst.ImportStar)
        scaler = next(a for a in node.names if dotted_name(a.name) == _SCALER)
        asname = scaler.asname.name if scaler.asname is not None else None
        alias = asname.value if isinstance(asname, cst.Name) else None
        shown = f"{_SCALER} as {alias}" if alias else _SCALER
        message = (
            f"from {module} import {shown} -> from torch.amp import {shown} (torch's own "
            "scaler, the current API)"
        )
        if len(node.names) == 1:
            replacement = node.with_changes(module=cst.parse_expression("torch.amp"))
            self._rewrites[id(node)] = (replacement, message, False)
            return None
        self.add_import("torch.amp", _SCALER, alias)
        rest = [a for a in node.names if a is not scaler]
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self._scaler_moves[id(node)] = message
        return node.with_changes(names=rest)

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom:
        found = self._rewrites.pop(id(original_node), None)
        moved = self._scaler_moves.pop(id(original_node), None)
        if found is None:
            return updated_node
        replacement, message, _ = found
        assert isinstance(replacement, cst.ImportFrom)
        if moved is not None:
            message = f"{moved}; {message}"
        return self.edit(original_node, updated_node, replacement, message)

    # Uses ---------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        # `getattr(torch, name, torch.cuda)`: a fallback device module, safely the target's.
        if isinstance(node.func, cst.Name) and node.func.value == "getattr":
            owner, fallback = find_arg(node, 0, None), find_arg(node, 2, "default")
            if owner is not None and fallback is not None and self.qualname(owner.value) == "torch":
                self._fallbacks.add(id(fallback.value))

    def _stream_handle(self, node: cst.Attribute) -> bool:
        """`stream.cuda_stream`: the raw handle of a torch stream (torch_npu's streams call
        it `npu_stream`), unless the module defines an attribute of that name itself."""
        # The file's facts walk the whole file: read only at such an attribute.
        if node.attr.value != f"{self.target.source_device_type}_stream" or self.ctx.facts is True:
            return False
        receiver = node.value
        return not (isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        """`torch.cuda.is_available() and <a capability gate that stays off on the NPU>`
        is one CUDA probe: left as it is (NPU018 answers the gate)."""
        if not isinstance(node.operator, cst.And):
            return
        operands = _and_operands(node)
        if not any(answers_false(o, self.qualname, self._source()) for o in operands):
            return
        for operand in operands:
            if isinstance(operand, cst.Call) and (
                self.qualname(operand.func) == f"{self._source()}.is_available"
            ):
                self._gates.add(id(operand.func))

    def visit_Dict(self, node: cst.Dict) -> None:
        """A table keyed by device names keeps its CUDA entry; say if the target has none."""
        keys = [string_value(e.key) for e in node.elements if isinstance(e, cst.DictElement)]
        source, device = self.target.source_device_type, self.target.device_type
        if source not in keys or device in keys:
            return
        cuda_entries = [
            e.value
            for e in node.elements
            if isinstance(e, cst.DictElement) and string_value(e.key) == source
        ]
        if any(self._mentions_source(value) for value in cuda_entries):
            self.warn(
                node,
                f'this table has a "{source}" entry and no "{device}" entry',
                f'add a "{device}" entry calling torch.{device}.<api> if it is looked up by device',
            )

    def visit_DictElement(self, node: cst.DictElement) -> bool:
        return string_value(node.key) != self.target.source_device_type

    def _mentions_source(self, node: cst.BaseExpression) -> bool:
        source = self._source()
        return any((self.qualname(found) or "").startswith(source) for found in _attributes(node))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if id(node) in self._gates:
            return False
        if self._stream_handle(node):
            source, device = self.target.source_device_type, self.target.device_type
            replacement = node.with_changes(attr=cst.Name(f"{device}_stream"))
            message = (
                f".{source}_stream -> .{device}_stream (the raw handle of a torch_npu stream); "
                f"check that what takes the handle is an {device.upper()} API"
            )
            self._rewrites[id(node)] = (replacement, message, True)
            self._handles.add(id(node))
            return True
        found = capability_read(node, self.qualname, self._source())
        if found is not None and found[1] is not None:
            # `get_device_properties(i).major`: a compute capability, NPU018's.
            self._gates.add(id(found[0].func))
        qualified = self.qualname(node)
        if qualified is None:
            return True
        source = self._source()
        if qualified != source and not qualified.startswith(source + "."):
            return False
        module = self._module_node(node)
        if module is None:
            # A name imported from torch.cuda itself: its import statement is rewritten.
            return False
        device = self.target.device_type
        parts = qualified[len(source) + 1 :].split(".") if qualified != source else []
        if not parts:
            if isinstance(module, cst.Attribute):
                self._bare_module(node, module)
            return False
        if self._owned_elsewhere(parts):
            return False
        if not self._known(parts[0]):
            self._unknown(node, parts[0])
            return False
        new_module = self._device_module(module)
        if new_module is None:
            self.warn(
                node,
                f"{source}.{parts[0]} is reached through an alias of {source} and no name "
                "for torch is bound here",
                f"import torch and call torch.{device}.{parts[0]}",
            )
            return False
        rest = ".".join(parts)
        message = f"{source}.{rest} -> torch.{device}.{rest}"
        self._rewrites[id(node)] = (_replace_in_chain(node, module, new_module), message, False)
        return False

    def _bare_module(self, node: cst.Attribute, module: cst.Attribute) -> None:
        """`torch.cuda` as a value: the device module, which is `torch.npu` there."""
        device = self.target.device_type
        replacement = module.with_changes(attr=cst.Name(device))
        message = f"{self._source()} -> torch.{device} (the device module)"
        review = id(node) not in self._fallbacks
        if review:
            message += f": check that torch.{device} has what is used from it"
        self._rewrites[id(node)] = (replacement, message, review)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.BaseExpression
    ) -> cst.BaseExpression:
        found = self._rewrites.pop(id(original_node), None)
        if found is None:
            return updated_node
        replacement, message, review = found
        assert isinstance(replacement, cst.BaseExpression)
        if id(original_node) in self._handles and isinstance(updated_node, cst.Attribute):
            # `torch.cuda.current_stream().cuda_stream`: the receiver has its own edit.
            replacement = updated_node.with_changes(
                attr=cst.Name(f"{self.target.device_type}_stream")
            )
        return self.edit(original_node, updated_node, replacement, message, review=review)

    def _module_node(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The part of an attribute chain that is the `torch.cuda` module."""
        current: cst.BaseExpression = node
        while True:
            if self.qualname(current) == self._source():
                return current
            if not isinstance(current, cst.Attribute):
                return None
            current = current.value

    def _device_module(self, module: cst.BaseExpression) -> cst.BaseExpression | None:
        """`torch.npu` spelled with the file's own name for torch."""
        device = cst.Name(self.target.device_type)
        if isinstance(module, cst.Attribute):
            return module.with_changes(attr=device)
        torch = "torch" if self.resolve_name("torch") == "torch" else self.local_name_for("torch")
        if torch is None:
            return None
        return cst.Attribute(value=cst.Name(torch), attr=device)


def _attributes(node: cst.CSTNode) -> list[cst.Attribute]:
    """Every attribute node under `node`, itself included."""
    return cst_walk.find_all(node, cst.Attribute)
