"""CUDA capability gates: compute-capability comparisons, `torch.version.cuda`, NCCL probes."""

from __future__ import annotations

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.capability_gates import PROPERTIES_API, answer, capability_read
from migrator.analysis.cst_helpers import dotted_name, string_value
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import FileView, Trigger

_CAPABILITY = "torch.cuda.get_device_capability"
_PROPERTIES = f"torch.cuda.{PROPERTIES_API}"
# Every site the rule edits or reports is a use of one of these (or of torch.cuda.nccl.*).
_NAMES = frozenset(
    {
        _CAPABILITY,
        _PROPERTIES,
        "torch.backends.cuda.is_built",
        "torch.version.cuda",
        "torch.cuda.nccl",
    }
)


def _names_gate(names: frozenset[str], view: FileView) -> bool:
    """A region that names none of the APIs is not parsed for the rule (the `nccl` token
    alone is in every mention of ProcessGroupNCCL or an "nccl" backend string)."""
    source = f"torch.{view.target.source_device_type}"
    wanted = _NAMES | {f"{source}.get_device_capability", f"{source}.{PROPERTIES_API}"}
    return any(name in wanted or name.startswith("torch.cuda.nccl.") for name in names)


class CudaCapabilityGate(PythonRule):
    """Answer CUDA capability gates for the NPU, and report the ones only a person can.

    What it does:

    - `torch.cuda.get_device_capability(...) >= (8, 0)` (also `>`, `<`, `<=`, either side,
      and `get_device_capability()[0] >= 8`) becomes `hasattr(torch, "npu") or <the
      comparison>` when an Ampere-class GPU (8.0) passes the gate, and `not hasattr(torch,
      "npu") and <the comparison>` when it does not (`>= (9, 0)`, `>= (8, 9)`, `< (8, 0)`):
      on the NPU the gate then answers as for an 8.0 GPU without calling
      `get_device_capability`; on a CUDA host it is unchanged. Flagged for review: say
      whether what the gate guards runs on the NPU;
    - the same for `torch.cuda.get_device_properties(i).major >= 8` (`.major` reads
      `[0]`, `.minor` reads `[1]`; torch_npu's properties carry no CUDA capability);
    - a gate whose threshold is not a literal (`get_device_capability() >= (major,
      minor)`, an FP8 or Hopper check with its version passed in) answers False on the
      NPU (`not hasattr(torch, "npu") and ...`), flagged for review: it never becomes a
      comparison with None, and a `torch.cuda.is_available() and` before it stays as it
      is (NPU012 leaves it: the whole probe is CUDA's);
    - reports other uses of `torch.cuda.get_device_capability()` (`major, minor = ...`,
      `==` tests) and of `get_device_properties(i).major` / `.minor`;
      `torch.version.cuda` (None on the NPU: `is not None` reads "no CUDA",
      `packaging.version.parse(torch.version.cuda)` raises `TypeError`), `torch.cuda.nccl`
      (`import torch.cuda.nccl`, `nccl.version()`: no NPU counterpart) and
      `torch.backends.cuda.is_built()` (False with torch's CPU build).

    Why: `torch.npu.get_device_capability()` exists but returns None, so the plain rename
    NPU012 does for other `torch.cuda` APIs (or `transfer_to_npu` at run time) turns the
    comparison into `TypeError: '>=' not supported between 'NoneType' and 'tuple'`; left
    as it is, the gate is False without CUDA. Either way a bf16 check built from it stays
    off on the NPU, and code that asserts bf16 support stops. NPU012 leaves these names
    to this rule (`migrator.analysis.capability_gates`).
    `torch.distributed.is_nccl_available()` is NPU016's (it becomes
    `is_backend_available("hccl")`); `torch.cuda.is_bf16_supported()` is NPU012's
    (`torch.npu.is_bf16_supported()` exists and answers).

    Example: `if torch.cuda.get_device_capability()[0] >= 8:` ->
    `if hasattr(torch, "npu") or torch.cuda.get_device_capability()[0] >= 8:`.

    Left alone: comparisons already behind `hasattr(torch, "npu")`, text and comments, a
    local named `torch`. A gate with a threshold that is not a literal is reported.

    Safety: needs review.
    """

    code = "NPU018"
    action = "port-code"
    name = "cuda-capability-gate"
    summary = (
        "CUDA capability gates answer for the NPU; torch.version.cuda and torch.cuda.nccl reported."
    )
    trigger = Trigger(
        tokens=(
            "get_device_capability",
            "get_device_properties",
            "version.cuda",
            # `import torch.version as tv` then `tv.cuda`: the alias spells it.
            "torch.version.cuda",
            "nccl",
            "is_built",
        ),
        names=_names_gate,
        # Decides from the comparison, call or import holding the name, and name
        # resolution.
        local=True,
    )
    examples = (
        Example(
            "import torch\nuse_bf16 = torch.cuda.get_device_capability() >= (8, 0)\n",
            'import torch\nuse_bf16 = hasattr(torch, "npu") or '
            "torch.cuda.get_device_capability() >= (8, 0)\n",
        ),
        Example(
            "import torch\nif ok and torch.cuda.get_device_capability()[0] >= 9:\n    fp8()\n",
            'import torch\nif ok and (not hasattr(torch, "npu") and '
            "torch.cuda.get_device_capability()[0] >= 9):\n    fp8()\n",
        ),
        Example(
            'import torch\nif hasattr(torch, "npu") or torch.cuda.get_device_capability() >= '
            "(8, 0):\n    pass\n",
            None,
        ),
        Example('print("get_device_capability() >= (8, 0)")\n', None),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        # Comparisons to rewrite: id -> (replacement, message).
        self._rewrites: dict[int, tuple[cst.BaseExpression, str]] = {}
        # Capability calls inside a comparison this rule answers (or already answered).
        self._handled: set[int] = set()
        # Expressions that stand alone (a statement's test or value, an argument), where
        # `a or b` needs no parentheses.
        self._bare: set[int] = set()

    # Where parentheses are not needed -------------------------------------------------
    def visit_If(self, node: cst.If) -> None:
        self._bare.add(id(node.test))

    def visit_While(self, node: cst.While) -> None:
        self._bare.add(id(node.test))

    def visit_Assert(self, node: cst.Assert) -> None:
        self._bare.add(id(node.test))

    def visit_Assign(self, node: cst.Assign) -> None:
        self._bare.add(id(node.value))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bare.add(id(node.value))

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self._bare.add(id(node.value))

    def visit_Arg(self, node: cst.Arg) -> None:
        self._bare.add(id(node.value))

    # Imports --------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            name = dotted_name(alias.name) or ""
            if name == "torch.cuda.nccl" or name.startswith("torch.cuda.nccl."):
                self._nccl(node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return False
        module = dotted_name(node.module) or ""
        names = {dotted_name(alias.name) or "" for alias in node.names}
        if module.startswith("torch.cuda.nccl") or (module == "torch.cuda" and "nccl" in names):
            self._nccl(node)
        return False

    # Comparisons ----------------------------------------------------------------------
    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        """`hasattr(torch, "npu") or <gate>` (this rule's own output) is answered already."""
        left = node.left
        if isinstance(left, cst.UnaryOperation) and isinstance(left.operator, cst.Not):
            left = left.expression
        if isinstance(left, cst.Call) and self._is_device_probe(left):
            for call in self._capability_calls(node.right):
                self._handled.add(id(call))

    def _is_device_probe(self, call: cst.Call) -> bool:
        if not (isinstance(call.func, cst.Name) and call.func.value == "hasattr"):
            return False
        if len(call.args) != 2 or self.qualname(call.args[0].value) != "torch":
            return False
        return string_value(call.args[1].value) == self.target.device_type

    def _capability_call(self, node: cst.BaseExpression) -> tuple[cst.Call, int | None] | None:
        """The capability call `node` is, and which index of it (`[0]`, `.major`) it reads."""
        return capability_read(node, self.qualname, self._source())

    def _source(self) -> str:
        return f"torch.{self.target.source_device_type}"

    def _capability_calls(self, node: cst.CSTNode) -> list[cst.Call]:
        return cst_walk.find_calls(node, self.qualname, (_CAPABILITY, _PROPERTIES))

    def visit_Comparison(self, node: cst.Comparison) -> None:
        found = answer(node, self.qualname, self._source())
        if found is None or id(found.call) in self._handled:
            return
        self._answer(node, found.call, found.passes, known=found.known)

    def _answer(
        self, node: cst.Comparison, call: cst.Call, passes: bool, *, known: bool = True
    ) -> None:
        torch = self._torch_name(call)
        if torch is None:
            return
        self._handled.add(id(call))
        device = self.target.device_type
        probe = cst.parse_expression(f'hasattr({torch}, "{device}")')
        inner = node.with_changes(lpar=(), rpar=())
        gate: cst.BaseExpression
        if passes:
            gate = cst.BooleanOperation(left=probe, operator=cst.Or(), right=inner)
            answer = "True"
        else:
            gate = cst.BooleanOperation(
                left=cst.UnaryOperation(operator=cst.Not(), expression=probe),
                operator=cst.And(),
                right=inner,
            )
            answer = "False"
        if node.lpar or id(node) not in self._bare:
            gate = gate.with_changes(
                lpar=node.lpar or (cst.LeftParen(),), rpar=node.rpar or (cst.RightParen(),)
            )
        api = self.qualname(call.func)
        if api == _PROPERTIES:
            why = (
                f"{api}().major/.minor do not give a CUDA compute capability on the "
                f"{device.upper()}"
            )
        else:
            why = (
                f"{api}() returns None on the {device.upper()} (the comparison would raise "
                "TypeError)"
            )
        if known:
            message = (
                f"{why}: the gate now answers {answer} there, as for an 8.0 GPU; check what it "
                "guards runs there"
            )
        else:
            message = (
                f"{why}: the threshold is not a literal, so the gate now answers False there; "
                "if it only asks for bf16 (8.0), answer True there instead"
            )
        self._rewrites[id(node)] = (gate, message)

    def leave_Comparison(
        self, original_node: cst.Comparison, updated_node: cst.Comparison
    ) -> cst.BaseExpression:
        found = self._rewrites.pop(id(original_node), None)
        if found is None:
            return updated_node
        replacement, message = found
        return self.edit(original_node, updated_node, replacement, message, review=True)

    def _torch_name(self, call: cst.Call) -> str | None:
        head: cst.BaseExpression = call.func
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name) and self.resolve_name(head.value) == "torch":
            return head.value
        if self.resolve_name("torch") == "torch":
            return "torch"
        name = self.local_name_for("torch")
        if name is None:
            self.warn(
                call,
                f"{_CAPABILITY}() is reached through an alias and no name for torch is bound here",
                'import torch and test hasattr(torch, "npu") before the capability',
            )
        return name

    # Other sites ----------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.qualname(node.func)
        device = self.target.device_type.upper()
        if qualified == _CAPABILITY and id(node) not in self._handled:
            self.warn(
                node,
                f"{_CAPABILITY}() returns None on the {device}: unpacking, indexing or "
                "comparing it raises TypeError",
                f'test hasattr(torch, "{self.target.device_type}") first and treat the '
                f"{device} as an 8.0 (bf16-capable) device",
            )
        elif qualified == "torch.backends.cuda.is_built":
            self.warn(
                node,
                f"torch.backends.cuda.is_built() is False on the {device} (torch_npu runs on "
                "torch's CPU build)",
                f"test torch.{self.target.device_type}.is_available() where the code means "
                "'an accelerator is there'",
            )

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        device = self.target.device_type.upper()
        found = self._capability_call(node)
        if found is not None and found[1] is not None and id(found[0]) not in self._handled:
            self._handled.add(id(found[0]))
            self.warn(
                node,
                f"{_PROPERTIES}().{node.attr.value} is no CUDA compute capability on the "
                f"{device}: a test on it does not answer as on a GPU",
                f'test hasattr(torch, "{self.target.device_type}") first and treat the '
                f"{device} as an 8.0 (bf16-capable) device",
            )
        qualified = self.qualname(node)
        if qualified is None:
            return True
        if qualified == "torch.version.cuda":
            self.warn(
                node,
                f"torch.version.cuda is None on the {device} (torch_npu runs on torch's CPU "
                "build): a test on it reads 'no CUDA', and parsing it raises TypeError",
                f'decide with hasattr(torch, "{self.target.device_type}") or '
                f"torch.{self.target.device_type}.is_available(); the runtime's version is "
                f"{self.target.runtime_module}.__version__",
            )
            return False
        if qualified == "torch.cuda.nccl" or qualified.startswith("torch.cuda.nccl."):
            self._nccl(node)
            return False
        return True

    def _nccl(self, node: cst.CSTNode) -> None:
        backend = self.target.dist_backend
        self.warn(
            node,
            f"torch.cuda.nccl has no {self.target.device_type.upper()} counterpart: "
            f"{backend.upper()} is reached only through torch.distributed",
            "skip the NCCL check off CUDA; test "
            f'torch.distributed.is_backend_available("{backend}")',
        )
