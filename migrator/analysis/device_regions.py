"""Code that device rules leave alone: it already handles the NPU, or keeps CUDA-only work on CUDA.

One place answers, for every device rule, whether a statement is such a region:

- an `if`/`elif` chain that already has a branch for the target device: a test that calls
  `is_torch_npu_available()` / `torch.npu.is_available()` (any name of the target device),
  `hasattr(torch, "npu")`, or compares with `"npu"` / `"hccl"` (`device.type == "npu"`,
  `backend == 'nccl'` ... `elif backend == 'hccl'`). Rewriting its CUDA arm makes the NPU
  arm unreachable and sends the NPU down the CUDA path, so the whole chain stays; an
  `assert` that already accepts the target (`assert t.device.type == "cuda" or
  t.device.type == "npu"`) is such a region too;
- a guard that keeps a CUDA-only feature on CUDA: an `assert ... == "cuda"` (`assert
  get_accelerator().device_name() == 'cuda', 'GDS currently only supported for CUDA'`), an
  `if ... != "cuda": raise ...` (diffusers' `_check_device_cuda`), an `if` whose message or
  leading comment says the feature is CUDA/NVIDIA-only;
- an `if` testing CUDA (`torch.cuda.is_available()`, `torch.version.cuda`) around CUDA-only
  work: building a `CUDAExtension`, `.cu` sources, importing or calling a CUDA-only package
  (`pynvml.nvmlInit()`) or a module whose name says CUDA. Turning it into
  `torch.npu.is_available()` would enable CUDA-only code on the NPU.

Names are resolved by the caller's resolver (a rule's `qualname`), so aliases count; a name
that does not resolve to an import (`self.is_npu`, a local) counts by its spelling when it
says NPU, since leaving code alone is the safe side, and never counts as a CUDA API.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import partial
from typing import cast

import libcst as cst

from migrator.analysis.ast_lines import identifiers, nested_statements, summary, walk
from migrator.analysis.bindings import dotted_parts, import_bindings
from migrator.analysis.cst_helpers import dotted_name, string_value
from migrator.analysis.cst_walk import children
from migrator.core.target import Target

Resolve = Callable[[cst.BaseExpression], str | None]

# Packages and modules that exist only for CUDA: importing one is CUDA-only work.
CUDA_ONLY_PACKAGES = (
    "apex",
    "bitsandbytes",
    "causal_conv1d",
    "cupy",
    "flash_attn",
    "mamba_ssm",
    "nvidia",
    "pynvml",
    "triton",
    "xformers",
)
_CUDA_EXTENSION_CALLS = frozenset(
    {
        "torch.utils.cpp_extension.CUDAExtension",
        "torch.utils.cpp_extension.load",
        "torch.utils.cpp_extension.load_inline",
    }
)
_ONLY_ON_SOURCE = re.compile(
    r"\bonly\b[^\n]*\b(?:cuda|nvidia|nccl)\b|\b(?:cuda|nvidia|nccl)\b[^\n]*\bonly\b"
    r"|\bmust be on a cuda\b|\brequires? (?:a )?(?:cuda|nvidia)\b",
    re.IGNORECASE,
)


class Kind(Enum):
    NPU_AWARE = "already handles the NPU"
    CUDA_ONLY = "keeps a CUDA-only feature on CUDA"


@dataclass(frozen=True)
class Region:
    kind: Kind
    why: str


def _words(name: str) -> set[str]:
    return {word for word in re.split(r"[._]", name.lower()) if word}


def _names(node: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """Every outermost name or attribute chain in `node` (and the ones inside calls)."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Name, cst.Attribute)):
            yield current
            if isinstance(current, cst.Attribute):
                stack.append(current.value)
            continue
        stack.extend(children(current))


def _strings(node: cst.CSTNode) -> Iterator[str]:
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        value = string_value(current) if isinstance(current, cst.SimpleString) else None
        if value is not None:
            yield value
        stack.extend(children(current))


def _spelled(node: cst.BaseExpression, resolve: Resolve) -> str:
    return resolve(node) or dotted_name(node) or ""


def _is_target_value(value: str, target: Target) -> bool:
    head = value.split(":", 1)[0].lower()
    return head in (target.device_type, target.dist_backend)


def npu_aware_test(test: cst.BaseExpression, resolve: Resolve, target: Target) -> str | None:
    """Why `test` already picks the target device, or None."""
    for named in _names(test):
        name = _spelled(named, resolve)
        if target.device_type in _words(name):
            return f"it tests {name}"
    for node in _walk(test):
        if isinstance(node, cst.Call) and dotted_name(node.func) == "hasattr":
            values = [string_value(arg.value) for arg in node.args]
            if target.device_type in values:
                return f'it tests hasattr(..., "{target.device_type}")'
        if isinstance(node, cst.Comparison):
            for value in _strings(node):
                if _is_target_value(value, target):
                    return f'it compares with "{value}"'
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("startswith", "endswith")
            and any(_is_target_value(v, target) for v in _strings(node))
        ):
            return f"it tests .{node.func.attr.value}() with the {target.device_type}"
    return None


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def _walk_unless(node: cst.CSTNode, skip: Callable[[cst.CSTNode], bool]) -> Iterator[cst.CSTNode]:
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if skip(current):
            continue
        yield current
        stack.extend(children(current))


def _names_target(node: cst.CSTNode, target: Target) -> bool:
    """A comparison that already accepts the target (`x in ["cuda", "npu"]`): its "cuda" is
    no CUDA code left behind."""
    return isinstance(node, cst.Comparison) and any(
        _is_target_value(value, target) for value in _strings(node)
    )


def _chain(node: cst.If) -> Iterator[cst.If]:
    current: cst.If | cst.Else | None = node
    while isinstance(current, cst.If):
        yield current
        current = current.orelse


def _compares_with_source(test: cst.BaseExpression, target: Target) -> bool:
    source = target.source_device_type
    for node in _walk(test):
        if isinstance(node, cst.Comparison):
            for value in _strings(node):
                if value.split(":", 1)[0] == source:
                    return True
    return False


def _tests_source(test: cst.BaseExpression, resolve: Resolve, target: Target) -> bool:
    """`torch.cuda.is_available()`, `torch.version.cuda`, `x == "cuda"` and the like."""
    source = target.source_device_type
    for node in _names(test):
        name = resolve(node)
        if name is not None and name.startswith("torch.") and source in name.split("."):
            return True
    return _compares_with_source(test, target)


def _cuda_feature(test: cst.BaseExpression, resolve: Resolve, target: Target) -> str | None:
    """A setting named for a CUDA feature beside the device test (`config.enable_cuda_graph`)."""
    source = target.source_device_type
    for node in _names(test):
        name = _spelled(node, resolve)
        words = _words(name.rsplit(".", 1)[-1])
        if source in words and len(words) > 1 and not name.startswith("torch."):
            return name
    return None


def _raises_only(body: cst.BaseSuite) -> bool:
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    found = False
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Raise):
                    found = True
                elif not isinstance(small, cst.Expr):
                    return False
        elif isinstance(statement, cst.SimpleStatementSuite):
            found = found or any(isinstance(s, cst.Raise) for s in statement.body)
        else:
            return False
    return found


def _says_only_on_source(node: cst.CSTNode) -> bool:
    return any(_ONLY_ON_SOURCE.search(value) for value in _strings(node))


def _leading_comments(node: cst.If) -> str:
    return "\n".join(line.comment.value for line in node.leading_lines if line.comment)


def cuda_only_work(node: cst.CSTNode, resolve: Resolve, target: Target) -> str | None:
    """What in `node` only works on CUDA, or None."""
    for found in _walk(node):
        if isinstance(found, cst.Call):
            name = resolve(found.func)
            if name in _CUDA_EXTENSION_CALLS:
                return f"it builds a CUDA extension ({name.rsplit('.', 1)[-1]})"
        elif isinstance(found, (cst.Import, cst.ImportFrom)):
            module = _imported_module(found)
            if module is not None and _cuda_only_module(module, target):
                return f"it imports the CUDA-only {module}"
        elif isinstance(found, (cst.Name, cst.Attribute)):
            name = resolve(found)
            # `extension = CUDAExtension` chooses the class without calling it here.
            if name in _CUDA_EXTENSION_CALLS:
                return f"it builds a CUDA extension ({name.rsplit('.', 1)[-1]})"
            if name == f"torch.version.{target.source_device_type}":
                return f"it reads torch.version.{target.source_device_type}"
            # `pynvml.nvmlInit()` with `import pynvml` at the top of the module.
            package = (name or "").split(".", 1)[0]
            if package in CUDA_ONLY_PACKAGES:
                return f"it uses the CUDA-only {package}"
    for value in _strings(node):
        # Sources, and the objects nvcc made of them (`kernel.cu.o`).
        if value.endswith((".cu", ".cuh", ".cu.o")):
            return f"it compiles {value}"
        if value.split("=")[0].split(">")[0].split("<")[0].strip() in CUDA_ONLY_PACKAGES:
            return f"it needs the CUDA-only {value}"
    return None


def _imported_module(node: cst.Import | cst.ImportFrom) -> str | None:
    if isinstance(node, cst.Import):
        names = [dotted_name(alias.name) or "" for alias in node.names]
        return next((name for name in names if name), None)
    module = dotted_name(node.module) if node.module is not None else ""
    if not module and not isinstance(node.names, cst.ImportStar):
        module = next((dotted_name(alias.name) or "" for alias in node.names), "")
    return module or None


def _cuda_only_module(module: str, target: Target) -> bool:
    parts = module.lstrip(".").split(".")
    if parts[0] in CUDA_ONLY_PACKAGES:
        return True
    source = target.source_device_type
    return any(source in part.lower() and part.lower() != source for part in parts) or (
        parts[-1].lower() in (f"{source}_kernels", f"{source}_ops", "_C")
    )


def region(node: cst.CSTNode, resolve: Resolve, target: Target) -> Region | None:
    """Whether device rules must leave `node` (an `if` chain or an `assert`) alone, and why."""
    if isinstance(node, cst.Assert):
        if not _mentions_devices([node.test], resolve, target):
            return None
        why = npu_aware_test(node.test, resolve, target)
        if why is not None:
            return Region(Kind.NPU_AWARE, why)
        if _compares_with_source(node.test, target) and _equality_only(node.test):
            return Region(Kind.CUDA_ONLY, f"it asserts the device is {target.source_device_type}")
        return None
    if not isinstance(node, cst.If):
        return None
    return _chain_region(list(_chain(node)), _Links(resolve, target))


class _Links:
    """What `region` reads of each link of an `if` chain (its test, its body), worked out
    once per link: the walk asks about every `elif` of a chain the device rules did not
    leave alone, and each `elif` heads the chain of the links after it, so reading each
    chain afresh read a chain of n links n times (one of torch's, 200 links long, took
    half a second)."""

    def __init__(self, resolve: Resolve, target: Target) -> None:
        self.resolve = resolve
        self.target = target
        # By the link's id: the chain's links, held by the caller, outlive this object.
        self._found: dict[tuple[str, int], object] = {}

    def _of(self, what: str, link: cst.If, work: Callable[[], object]) -> object:
        key = (what, id(link))
        if key not in self._found:
            self._found[key] = work()
        return self._found[key]

    def mentions_devices(self, link: cst.If) -> bool:
        work = partial(_mentions_devices, [link.test], self.resolve, self.target)
        return bool(self._of("mentions", link, work))

    def npu_aware(self, link: cst.If) -> str | None:
        work = partial(npu_aware_test, link.test, self.resolve, self.target)
        return cast("str | None", self._of("aware", link, work))

    def tests_source(self, link: cst.If) -> bool:
        work = partial(_tests_source, link.test, self.resolve, self.target)
        return bool(self._of("source", link, work))

    def feature(self, link: cst.If) -> str | None:
        """A CUDA feature the test reads beside comparing with the source device."""

        def work() -> str | None:
            found = _cuda_feature(link.test, self.resolve, self.target)
            return (
                found
                if found is not None and _compares_with_source(link.test, self.target)
                else None
            )

        return cast("str | None", self._of("feature", link, work))

    def only_work(self, link: cst.If) -> str | None:
        def work() -> str | None:
            return cuda_only_work(link.body, self.resolve, self.target) or cuda_only_work(
                link.test, self.resolve, self.target
            )

        return cast("str | None", self._of("work", link, work))


def _chain_region(links: Sequence[cst.If], facts: _Links) -> Region | None:
    """`region` of the `if` chain `links` (its head first)."""
    target = facts.target
    if not any(facts.mentions_devices(link) for link in links):
        return None
    for link in links:
        why = facts.npu_aware(link)
        if why is not None:
            return Region(Kind.NPU_AWARE, why)
    if not any(facts.tests_source(link) for link in links):
        return None
    node = links[0]
    if _ONLY_ON_SOURCE.search(_leading_comments(node)):
        return Region(Kind.CUDA_ONLY, "its comment or message says so")
    if (
        _compares_with_source(node.test, target)
        and _raises_only(node.body)
        and (_says_only_on_source(node.body) or _negated(node.test))
    ):
        return Region(Kind.CUDA_ONLY, "it raises unless the device is CUDA")
    for link in links:
        feature = facts.feature(link)
        if feature is not None:
            return Region(Kind.CUDA_ONLY, f"it also tests {feature}")
    for link in links:
        if facts.tests_source(link):
            why = facts.only_work(link)
            if why is not None:
                return Region(Kind.CUDA_ONLY, why)
    return None


def _mentions_devices(
    tests: Sequence[cst.BaseExpression], resolve: Resolve, target: Target
) -> bool:
    """Whether a name of `tests` (`_names`, as `_spelled`) or one of their strings holds
    the source or target device or the target's backend in any case: every test
    `npu_aware_test` or `_tests_source` accepts does, so an `if` chain or `assert`
    without one is no region. One walk, each name resolved once, where those two
    walk each test four times and resolve each name twice (most tests name no device)."""
    words = (target.device_type, target.source_device_type, target.dist_backend)
    stack: list[cst.CSTNode] = list(tests)
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Name, cst.Attribute)):
            spelled = _spelled(current, resolve).lower()
            if any(word in spelled for word in words):
                return True
            if isinstance(current, cst.Attribute):
                stack.append(current.value)
            continue
        if isinstance(current, cst.SimpleString):
            value = string_value(current)
            if value is not None and any(word in value.lower() for word in words):
                return True
        stack.extend(children(current))
    return False


def _equality_only(test: cst.BaseExpression) -> bool:
    """`x == "cuda"` (or an `and` of such): not a membership test like `x in ["cpu", "cuda"]`."""
    for node in _walk(test):
        if isinstance(node, cst.ComparisonTarget) and isinstance(
            node.operator, (cst.In, cst.NotIn)
        ):
            return False
    return True


def _negated(test: cst.BaseExpression) -> bool:
    return any(
        isinstance(node, cst.ComparisonTarget) and isinstance(node.operator, cst.NotEqual)
        for node in _walk(test)
    )


def mentions_source(node: cst.CSTNode, target: Target) -> bool:
    """Whether `node` names the source device or backend at all (else nothing was left)."""
    source = {target.source_device_type, target.source_dist_backend}
    for found in _walk_unless(node, lambda inner: _names_target(inner, target)):
        if isinstance(found, cst.Name) and source & _words(found.value):
            return True
        if isinstance(found, cst.SimpleString) and any(s in found.value.lower() for s in source):
            return True
    return False


# Decisions made on the tree as it was written, by node id (a pass-shared cache): the node
# is kept beside its decision so that a recycled id is never mistaken for it.
Decisions = dict[int, tuple[cst.CSTNode, Region | None]]


def decided(
    decisions: Decisions, node: cst.CSTNode, resolve: Resolve, target: Target
) -> Region | None:
    """`region(node)`, decided once per node and then read from `decisions`. An `if`
    chain that is no region has each of its `elif`s decided with it, from the same reads
    of its links (`_Links`): the walk goes on into the chain and asks about each."""
    known = decisions.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    if not isinstance(node, cst.If):
        found = region(node, resolve, target)
        decisions[id(node)] = (node, found)
        return found
    links = list(_chain(node))
    facts = _Links(resolve, target)
    found = _chain_region(links, facts)
    decisions[id(node)] = (node, found)
    if found is None:
        for index in range(1, len(links)):
            link = links[index]
            known = decisions.get(id(link))
            if known is None or known[0] is not link:
                decisions[id(link)] = (link, _chain_region(links[index:], facts))
    return found


def hand_on(decisions: Decisions, original: cst.CSTNode, result: object) -> None:
    """Give the node a pass built from `original` the decision made for `original`, so that
    later passes leave the same code alone."""
    if not isinstance(result, cst.CSTNode) or result is original:
        return
    known = decisions.get(id(original))
    if known is not None and known[0] is original:
        decisions[id(result)] = (result, known[1])


# The stdlib-ast foresight of `region` -------------------------------------------------
def _ast_test_words(
    node: ast.AST, names: Mapping[str, Sequence[str | None]], wanted: frozenset[str]
) -> frozenset[str]:
    """The words of `wanted` among the words of a name or attribute in `node` (every
    identifier LibCST spells as a `Name`), of what its names are bound to by imports, or
    inside one of its string literals, in any case: a superset of what `npu_aware_test`
    and `_tests_source` read. One walk finds them all."""
    found: set[str] = set()
    for inner in walk(node):
        if type(inner) is ast.Constant:
            assert isinstance(inner, ast.Constant)
            if isinstance(inner.value, str):
                text = inner.value.lower()
                found.update(word for word in wanted if word in text)
        else:
            for identifier in identifiers(inner):
                found.update(wanted & _words(identifier))
                for value in names.get(identifier, ()):
                    if value:
                        found.update(wanted & _words(value))
        if len(found) == len(wanted):
            break
    return frozenset(found)


def _ast_chain(node: ast.If) -> Iterator[ast.If]:
    current: ast.stmt | None = node
    while isinstance(current, ast.If):
        yield current
        # `elif` and `else:` holding only an `if` read the same in the stdlib tree: both
        # count as links, a superset of LibCST's chain.
        current = current.orelse[0] if len(current.orelse) == 1 else None


# The statements whose test `may_leave_alone` reads.
_TESTING = frozenset({ast.If, ast.Assert})


def may_leave_alone(
    statements: Sequence[ast.stmt],
    names: Mapping[str, Sequence[str | None]],
    target: Target,
    text: str | None = None,
) -> bool:
    """Whether `region` may find, in these statements, an `if` chain or `assert` that names
    the source device or backend (all NPU077 reports): a necessary condition read from the
    stdlib tree, following `region`'s own paths (`_may_be_region`), and the statement
    must name the source device or backend somewhere. `text`: the region's source, where
    a comment may say a feature is CUDA-only (None: not known, so any `if` testing CUDA
    may carry one). On torch's source NPU077 reports in 41 of the 492 regions the
    looser check (any `if` or `assert` whose test names a device) let through.

    An `if` chain is judged once, at its head: what `region` finds for a chain that
    starts at one of its `elif`s, `_may_be_region` finds for the whole chain too."""
    source = (target.source_device_type, target.source_dist_backend)
    # Searched once a region, and only where a chain that tests CUDA asks.
    commented = says_only_on_source(text)

    for statement in statements:
        if _TESTING.isdisjoint(summary(statement).kinds):
            continue
        # A function's own imports count too (`import torch.cuda as tc` inside it).
        scope = with_own_imports(names, (statement,))
        linked: set[int] = set()
        # An `if` or `assert` is only ever a statement: no expression is walked.
        for node in nested_statements((statement,)):
            links: list[ast.If] = []
            if isinstance(node, ast.If):
                if id(node) in linked:
                    continue
                links = list(_ast_chain(node))
                linked.update(id(link) for link in links)
            elif not isinstance(node, ast.Assert):
                continue
            if _may_be_region(node, links, scope, target, commented) and _ast_mentions(
                node, source
            ):
                return True
    return False


def with_own_imports(
    names: Mapping[str, Sequence[str | None]], statements: Sequence[ast.stmt]
) -> Mapping[str, Sequence[str | None]]:
    """`names` (what the module's imports bind each name to) with what the imports inside
    `statements` bind added (`import torch.cuda as tc` in a function): `names` itself
    where they import nothing."""
    nested = [pair for statement in statements for pair in summary(statement).imports]
    if not nested:
        return names
    merged: dict[str, list[str | None]] = {name: list(bound) for name, bound in names.items()}
    for name, dotted in nested:
        merged.setdefault(name, []).append(dotted)
    return merged


def plain_chain(
    node: ast.If,
    names: Mapping[str, Sequence[str | None]],
    target: Target,
    commented: Callable[[], bool],
) -> bool:
    """Whether `region` finds no region in the `if` chain `node` heads nor in any that
    starts at one of its links (`_may_be_region` is False; `names`: what the names in
    scope are bound to, `commented`: whether the source around it says a feature is
    CUDA-only, `says_only_on_source`), with the statements of its bodies as they are or
    any of them stood in for by a plain one (`pass`, `a = None`, or a bytes string over
    the statement's lines, alone or assigned) binding names the statement binds: such a
    chain is decided by its tests alone, which a stand-in does not touch; a `raise` and
    CUDA-only work, what `region` reads of a body, are in neither."""
    return not _may_be_region(node, list(_ast_chain(node)), names, target, commented)


def says_only_on_source(text: str | None) -> Callable[[], bool]:
    """Whether `text` (a region's source; None: not known) may say in a comment or message
    that a feature is CUDA-only, searched the first time it is asked, once."""
    found: list[bool] = []

    def says() -> bool:
        if not found:
            found.append(text is None or _ONLY_ON_SOURCE.search(text) is not None)
        return found[0]

    return says


def _may_be_region(
    node: ast.If | ast.Assert,
    links: Sequence[ast.If],
    names: Mapping[str, Sequence[str | None]],
    target: Target,
    commented: Callable[[], bool],
) -> bool:
    """`region`'s decision foreseen on the stdlib tree, for an `assert` or the `if` chain
    headed by `node` (its links, `_ast_chain`) and every chain that starts at one of its
    links: False only where `region` gives None for all of them.

    An `assert` must test the target (`npu_aware_test`) or compare with a string naming
    the source device. An `if` chain must have a link that tests the target, or a link
    that tests the source device (`_tests_source`) and one of what makes a CUDA-only
    guard: a comment or message saying so (`commented`: the region's text says so), a
    `raise` in a link's body, a test that reads a setting named for a CUDA feature
    beside a string naming the device, or CUDA-only work in the body or test of a link
    that tests the device (`cuda_only_work`: an import of a CUDA-only module, a name
    resolving to a CUDA extension builder, `torch.version.cuda` or a CUDA-only package, a
    `.cu` source or a CUDA-only package named in a string). Each check reads more than
    `region` does (every name and attribute, every string, every link of an `else:` that
    holds only an `if`), never less."""
    aware = frozenset({target.device_type, target.dist_backend})
    device = target.source_device_type
    wanted = aware | {device}
    if isinstance(node, ast.Assert):
        return bool(_ast_test_words(node.test, names, aware)) or _names_in_string(
            node.test, (device,)
        )
    testing = []
    for link in links:
        found = _ast_test_words(link.test, names, wanted)
        if not aware.isdisjoint(found):
            return True
        if device in found:
            testing.append(link)
    if not testing:
        return False
    if any(isinstance(statement, ast.Raise) for link in links for statement in link.body):
        return True
    if any(
        _ast_feature(link.test, names, device) and _names_in_string(link.test, (device,))
        for link in links
    ):
        return True
    if any(_ast_cuda_only_work([*link.body, link.test], names, target) for link in testing):
        return True
    return commented()


def _ast_feature(node: ast.AST, names: Mapping[str, Sequence[str | None]], device: str) -> bool:
    """`_cuda_feature`'s superset: a name, attribute or imported name's last part that
    holds the device among other words (`enable_cuda_graph`)."""
    for found in walk(node):
        for identifier in identifiers(found):
            spelled = [identifier, *(value for value in names.get(identifier, ()) if value)]
            for name in spelled:
                words = _words(name.rsplit(".", 1)[-1])
                if device in words and len(words) > 1:
                    return True
    return False


def _names_in_string(node: ast.AST, words: Sequence[str]) -> bool:
    """Whether a string or bytes literal in `node` holds one of `words` (as written)."""
    for found in walk(node):
        if isinstance(found, ast.Constant):
            value = found.value
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            if isinstance(value, str) and any(word in value for word in words):
                return True
    return False


def _ast_cuda_only_work(
    roots: Sequence[ast.AST], names: Mapping[str, Sequence[str | None]], target: Target
) -> bool:
    """`cuda_only_work`'s superset on the stdlib tree (see `_may_be_region`)."""
    device = target.source_device_type
    for root in roots:
        for found in walk(root):
            if isinstance(found, (ast.Import, ast.ImportFrom)):
                module = _ast_imported_module(found)
                if module is not None and _cuda_only_module(module, target):
                    return True
                # LibCST walks the names an import binds as names, which resolve to what
                # they import (`from torch.utils.cpp_extension import load`).
                if any(_cuda_only_name(dotted, device) for _, dotted in import_bindings(found)):
                    return True
            elif isinstance(found, ast.Constant):
                if _names_in_string(found, (".cu", *CUDA_ONLY_PACKAGES)):
                    return True
                continue
            # A name resolves by what an import binds it to; an attribute chain too.
            for identifier in identifiers(found):
                for head in names.get(identifier, ()):
                    if head is not None and _cuda_only_name(head, device):
                        return True
            parts = dotted_parts(found) if isinstance(found, ast.Attribute) else None
            if not parts:
                continue
            for head in names.get(parts[0], ()):
                if head is not None and _cuda_only_name(".".join([head, *parts[1:]]), device):
                    return True
    return False


def _cuda_only_name(name: str, device: str) -> bool:
    """A resolved name `cuda_only_work` counts: a CUDA extension builder,
    `torch.version.cuda`, or anything of a CUDA-only package."""
    return (
        name in _CUDA_EXTENSION_CALLS
        or name == f"torch.version.{device}"
        or name.split(".", 1)[0] in CUDA_ONLY_PACKAGES
    )


def _ast_imported_module(node: ast.Import | ast.ImportFrom) -> str | None:
    """`_imported_module` on the stdlib tree."""
    if isinstance(node, ast.Import):
        return next((alias.name for alias in node.names if alias.name), None)
    if node.module:
        return node.module
    return next((alias.name for alias in node.names if alias.name != "*"), None)


def _ast_mentions(node: ast.stmt, source: Sequence[str]) -> bool:
    """`mentions_source` on the stdlib tree, a superset: every identifier counts (LibCST
    spells attributes, keywords, parameters and imported names as `Name` nodes too), every
    string and bytes literal by its text, and comparisons that accept the target are not
    left out."""
    wanted = set(source)
    for found in walk(node):
        if isinstance(found, ast.Constant):
            value = found.value
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            if isinstance(value, str) and any(word in value.lower() for word in source):
                return True
            continue
        for field in found._fields:
            value = getattr(found, field, None)
            if isinstance(value, str) and not wanted.isdisjoint(_words(value)):
                return True
            if (
                isinstance(value, list)
                and value
                and isinstance(value[0], str)
                and any(not wanted.isdisjoint(_words(item)) for item in value)
            ):
                return True
    return False
