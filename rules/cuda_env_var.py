"""CUDA and NCCL environment variables set, read or removed from Python."""

from __future__ import annotations

import ast
import enum
import math
import re
from dataclasses import dataclass
from typing import TypeVar

import libcst as cst

from migrator.analysis.ast_lines import statement_nodes
from migrator.analysis.cst_helpers import find_arg, string_value, terminal_name, with_string_value
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import RegionView, Trigger
from migrator.core.target import EnvMapping

# Names of mappings that hold an environment: `env`, `new_env`, `self.envs`, `environ`.
_ENV_NAME = re.compile(r"(?:^|_)envs?(?:$|_)|environ")
_OS_ENV_FUNCTIONS = {"os.getenv": "read", "os.putenv": "write", "os.unsetenv": "delete"}
_ENV_METHODS = {"get": "read", "pop": "read", "setdefault": "write"}
_INTEGER = re.compile(r"^\s*\d+\s*$")


class _Use(enum.Enum):
    READ = "read"
    WRITE = "write"
    DELETE = "delete"


@dataclass(frozen=True)
class _Plan:
    name: str
    message: str
    review: bool = False
    value: str | None = None


_KeyNode = TypeVar("_KeyNode", cst.SimpleString, cst.Name)


@dataclass
class _Key:
    mapping: EnvMapping
    use: _Use
    value: cst.BaseExpression | None = None


def _names_a_variable(region: RegionView) -> bool:
    """Whether the region holds a plain string or a keyword's name that is a CUDA-side
    variable (`Target.env_mapping`): every key the rule edits or reports is one (a
    `CUDA_HOME` constant or `_NCCL_STREAMS` attribute is not)."""
    mapping = region.target.env_mapping
    for statement in region.statements:
        for node in statement_nodes(statement):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if mapping(node.value) is not None:
                    return True
            elif isinstance(node, ast.keyword) and node.arg and mapping(node.arg) is not None:
                return True
    return False


class CudaEnvVar(PythonRule):
    """Rename CUDA and NCCL environment variables to the target's.

    What it does: where Python code sets, reads or removes an environment variable, the key
    is renamed by the target's table (`CUDA_VISIBLE_DEVICES` -> `ASCEND_RT_VISIBLE_DEVICES`,
    `PYTORCH_CUDA_ALLOC_CONF` -> `PYTORCH_NPU_ALLOC_CONF`, `NCCL_SOCKET_IFNAME` ->
    `HCCL_SOCKET_IFNAME`, ...). Positions: `os.environ[...]` (read, assigned, `del`),
    `os.environ.get/pop/setdefault`, `os.getenv`, `os.putenv`, `os.unsetenv`,
    `"X" in os.environ`, `os.environ.update({...})` and `update(X=...)`, `dict(os.environ,
    X=...)`, dict displays that extend `**os.environ` or are given as `env=` or assigned to an
    environment name. The environment may be spelled `os.environ`, `environ` (`from os import
    environ`), `_os.environ`, or be a mapping whose name says so (`env`, `new_env`, `environ`),
    as in `env = os.environ.copy(); env["CUDA_VISIBLE_DEVICES"] = "0"`.

    Units: where the target's variable counts in other units (`NCCL_BUFFSIZE`, in bytes,
    -> `HCCL_BUFFSIZE`, in MB) a literal integer set in the same statement or call is
    converted (`"8388608"` -> `"8"`, rounded up; a rounded value is
    flagged). A value that is not a literal is renamed and flagged for review (convert it);
    a *read* of such a variable is only reported, since the code around it expects the old
    unit.

    Why: `transfer_to_npu` does not translate environment variables. On an Ascend host
    `CUDA_VISIBLE_DEVICES` does not restrict the NPUs a process sees, so every rank may land
    on NPU 0; NCCL tuning and timeouts are ignored by HCCL.

    Reported, not rewritten: variables without an equivalent (`NCCL_DEBUG`, `CUDA_HOME`,
    `CUDA_DEVICE_ORDER`, any other `NCCL_*`), with the literal value set and the target's
    advice. NCCL variables are mapped only where the NCCL guide documents them and the HCCL
    guide a counterpart (the target's table names both): `NCCL_TIMEOUT` and
    `NCCL_SOCKET_TIMEOUT_MS` are NCCL's in name only, so they are reported and HCCL's own
    timeouts keep their defaults.

    Left alone: keys in log text, keys held in variables, variables already on the target.

    Safety: safe; value conversions of non-literal values need review.
    """

    code = "NPU017"
    action = "host-setup"
    name = "cuda-env-var"
    summary = "CUDA/NCCL environment variables set or read from Python to the target's names."
    trigger = Trigger(tokens=("CUDA_", "NCCL_"), region=_names_a_variable, local=True)
    examples = (
        Example(
            'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\n'
            'os.environ.setdefault("NCCL_BUFFSIZE", "8388608")\n',
            'import os\nos.environ["ASCEND_RT_VISIBLE_DEVICES"] = "0,1"\n'
            'os.environ.setdefault("HCCL_BUFFSIZE", "8")\n',
        ),
        Example(
            'import os\nprint("set CUDA_VISIBLE_DEVICES first")\nkey = "CUDA_VISIBLE_DEVICES"\n',
            None,
        ),
    )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._keys: dict[int, _Key] = {}
        self._values: dict[int, str] = {}

    # What counts as the environment ----------------------------------------------------
    def _is_environ(self, node: cst.BaseExpression) -> bool:
        if self.qualname(node) == "os.environ":
            return True
        name = terminal_name(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        return name is not None and _ENV_NAME.search(name.lower()) is not None

    def _key(
        self,
        node: cst.BaseExpression | None,
        use: _Use,
        value: cst.BaseExpression | None = None,
        *,
        keyword: bool = False,
    ) -> None:
        """Note the key at `node` (a string, or a keyword's name) and the value it gets."""
        if node is None or id(node) in self._keys:
            return
        key = string_value(node) if isinstance(node, cst.SimpleString) else None
        if keyword and isinstance(node, cst.Name):
            key = node.value
        if key is None:
            return
        mapping = self.target.env_mapping(key)
        if mapping is not None:
            self._keys[id(node)] = _Key(mapping, use, value)

    def _dict_keys(self, node: cst.BaseExpression) -> None:
        if isinstance(node, cst.Dict):
            for element in node.elements:
                if isinstance(element, cst.DictElement):
                    self._key(element.key, _Use.WRITE, element.value)

    # Positions -------------------------------------------------------------------------
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._assigned(node.target, node.value)

    def _assigned(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript) and self._is_environ(target.value):
            self._key(_index(target), _Use.WRITE, value)
        elif self._is_environ(target):
            self._dict_keys(value)

    def visit_Del(self, node: cst.Del) -> None:
        targets = node.target.elements if isinstance(node.target, cst.Tuple) else ()
        for target in [node.target, *(element.value for element in targets)]:
            if isinstance(target, cst.Subscript) and self._is_environ(target.value):
                self._key(_index(target), _Use.DELETE)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._is_environ(node.value):
            self._key(_index(node), _Use.READ)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for target in node.comparisons:
            if isinstance(target.operator, (cst.In, cst.NotIn)) and self._is_environ(
                target.comparator
            ):
                self._key(left, _Use.READ)
            left = target.comparator

    def visit_Dict(self, node: cst.Dict) -> None:
        if any(
            isinstance(element, cst.StarredDictElement) and self._is_environ(element.value)
            for element in node.elements
        ):
            self._dict_keys(node)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = self.qualname(func)
        if name in _OS_ENV_FUNCTIONS:
            use = _Use(_OS_ENV_FUNCTIONS[name])
            value = find_arg(node, 1, None)
            self._key(_arg(node, 0), use, value.value if value and use is _Use.WRITE else None)
        elif isinstance(func, cst.Attribute) and self._is_environ(func.value):
            method = func.attr.value
            if method in _ENV_METHODS:
                use = _Use(_ENV_METHODS[method])
                value = find_arg(node, 1, None) if use is _Use.WRITE else None
                self._key(_arg(node, 0), use, value.value if value else None)
            elif method == "update":
                self._keywords(node, 0)
        elif isinstance(func, cst.Name) and func.value == "dict":
            first = find_arg(node, 0, None)
            if first is not None and self._is_environ(first.value):
                self._keywords(node, 1)
        env = find_arg(node, None, "env")
        if env is not None:
            self._dict_keys(env.value)

    def _keywords(self, call: cst.Call, dict_at: int) -> None:
        if dict_at == 0:
            first = find_arg(call, 0, None)
            if first is not None:
                self._dict_keys(first.value)
        for arg in call.args:
            if arg.keyword is not None:
                self._key(arg.keyword, _Use.WRITE, arg.value, keyword=True)

    # Rewrites --------------------------------------------------------------------------
    def leave_SimpleString(
        self, original_node: cst.SimpleString, updated_node: cst.SimpleString
    ) -> cst.SimpleString:
        value = self._values.pop(id(original_node), None)
        if value is not None:
            return with_string_value(updated_node, value)
        key = self._keys.pop(id(original_node), None)
        plan = None if key is None else self._plan(original_node, key)
        if key is None or plan is None:
            return updated_node
        return self._apply(
            original_node, updated_node, with_string_value(updated_node, plan.name), key, plan
        )

    def leave_Integer(self, original_node: cst.Integer, updated_node: cst.Integer) -> cst.Integer:
        value = self._values.pop(id(original_node), None)
        return updated_node if value is None else updated_node.with_changes(value=value)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        key = self._keys.pop(id(original_node), None)
        plan = None if key is None else self._plan(original_node, key)
        if key is None or plan is None:
            return updated_node
        return self._apply(
            original_node, updated_node, updated_node.with_changes(value=plan.name), key, plan
        )

    def _apply(
        self, original: _KeyNode, updated: _KeyNode, replacement: _KeyNode, key: _Key, plan: _Plan
    ) -> _KeyNode:
        result = self.edit(original, updated, replacement, plan.message, review=plan.review or None)
        if result is replacement and plan.value is not None and key.value is not None:
            self._values[id(key.value)] = plan.value
        return result

    def _plan(self, node: cst.CSTNode, key: _Key) -> _Plan | None:
        """How to rename the key at `node` and convert its value; None after a warning."""
        mapping = key.mapping
        label = self.target.name.upper()
        if mapping.target is None:
            prefix = self.target.env_prefix
            advice = mapping.note
            if mapping.source not in self.target.env and prefix is not None:
                advice = f"drop it, or set the {prefix[1]}* variable that does the same"
            shown = _literal(key.value)
            self.warn(
                node,
                f"{mapping.source}{'' if shown is None else '=' + shown} left as it is: "
                f"no {label} equivalent",
                advice,
            )
            return None
        note = f"; {mapping.note}" if mapping.note else ""
        scaled = mapping.scale != 1.0
        if scaled and key.use is _Use.READ:
            self.warn(
                node,
                f"{mapping.source} is read here; the {label} reads {mapping.target}{note}",
                f"read {mapping.target} and convert it where the value is used",
            )
            return None
        message = f"environment variable {mapping.source} -> {mapping.target}"
        if not scaled or key.use is not _Use.WRITE:
            return _Plan(mapping.target, message + note)
        converted = _scaled(key.value, mapping.scale)
        if converted is None:
            return _Plan(mapping.target, f"{message}: convert the value{note}", True)
        text, exact = converted
        rounded = "" if exact else " (rounded up)"
        message += f", value {_literal_text(key.value)} -> {text}{rounded}{note}"
        return _Plan(mapping.target, message, not exact, text)


def _index(node: cst.Subscript) -> cst.BaseExpression | None:
    if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return node.slice[0].slice.value
    return None


def _arg(call: cst.Call, position: int) -> cst.BaseExpression | None:
    arg = find_arg(call, position, None)
    return None if arg is None else arg.value


def _literal_text(node: cst.BaseExpression | None) -> str:
    if isinstance(node, cst.Integer):
        return node.value
    value = string_value(node)
    return value if value is not None else "?"


def _scaled(node: cst.BaseExpression | None, scale: float) -> tuple[str, bool] | None:
    """The converted literal integer (as its new text) and whether it is exact."""
    if isinstance(node, cst.Integer):
        number = int(node.value.replace("_", ""), 0)
    else:
        value = string_value(node)
        if value is None or not _INTEGER.match(value):
            return None
        number = int(value)
    result = number * scale
    exact = abs(result - round(result)) < 1e-9
    return str(round(result) if exact else math.ceil(result)), exact


def _literal(value: cst.BaseExpression | None) -> str | None:
    """The value set, where it is a literal: the report shows what to carry over by hand."""
    if isinstance(value, cst.Integer):
        return value.value
    return None if value is None else string_value(value)
