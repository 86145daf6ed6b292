"""The rule contract: discovery, codes, docs, examples, and the target read as data."""

from __future__ import annotations

import dataclasses
import re

import pytest

from migrator.contract.expected import expected_in_paths
from migrator.contract.rule import (
    CODE_PATTERN,
    NAME_PATTERN,
    PythonRule,
    Rule,
    RuleOptions,
    TextRule,
)
from migrator.contract.trigger import Trigger, Unit
from migrator.core.model import Status
from migrator.core.target import NPU, EnvMapping
from migrator.engine import registry
from migrator.engine.files import migrate_text
from migrator.engine.settings import Settings
from tests.golden_cases import cases, run_case

RULES = registry.load().rules


def test_registry_finds_generic_rules() -> None:
    assert registry.load().by_code("NPU001") is not None


@pytest.mark.parametrize("rule", RULES, ids=[rule.code for rule in RULES])
def test_rule_declares_contract(rule: type[Rule]) -> None:
    assert CODE_PATTERN.match(rule.code)
    assert NAME_PATTERN.match(rule.name)
    module = rule.__module__.rsplit(".", 1)[-1]
    assert module.replace("_", "-") == rule.name, "module and rule name must spell the same words"
    assert rule.__name__.lower() == module.replace("_", ""), "class and module must match"
    assert rule.summary and len(rule.summary) <= 100 and "\n" not in rule.summary
    assert "Why" in rule.explain(), "the docstring must say why the rule is needed"
    assert rule.trigger.tokens or rule.trigger.patterns
    assert any(ex.after is not None for ex in rule.examples), "needs an example it acts on"
    assert any(ex.after is None for ex in rule.examples), "needs an example it leaves alone"
    assert issubclass(rule, (PythonRule, TextRule))


@pytest.mark.parametrize("rule", RULES, ids=[rule.code for rule in RULES])
def test_entry_point_rules_stay_out_of_notebooks(rule: type[Rule]) -> None:
    """NPU030-NPU049 set up entry scripts; a notebook is none (see migrator.formats.notebook)."""
    if rule.code.startswith("NPU") and 30 <= int(rule.code[3:]) <= 49:
        assert rule.trigger.notebooks is False, f"{rule.code}'s trigger must say notebooks=False"


def test_codes_and_names_are_unique() -> None:
    codes = [rule.code for rule in RULES]
    names = [rule.name for rule in RULES]
    assert len(codes) == len(set(codes))
    assert len(names) == len(set(names))


def test_duplicate_codes_are_refused() -> None:
    rule = RULES[0]
    clone = type("Clone", (rule,), {"code": rule.code, "name": "clone-rule"})
    with pytest.raises(registry.RegistryError, match="also used"):
        registry.validate([rule, clone])


EXAMPLES = [(rule, index) for rule in RULES for index in range(len(rule.examples))]


@pytest.mark.parametrize("rule,index", EXAMPLES, ids=[f"{r.code}-{i}" for r, i in EXAMPLES])
@pytest.mark.parametrize("full", [False, True], ids=["fast", "full"])
def test_rule_examples(rule: type[Rule], index: int, full: bool) -> None:
    example = rule.examples[index]
    settings = Settings(NPU, (rule.code,), RuleOptions(), full=full)
    result = migrate_text(example.path, example.before.encode(), settings)
    assert result.status is not Status.FAILED, result.error
    if example.after is None:
        assert result.new_data is None, f"{rule.code} must leave this example alone"
        assert not result.warnings, f"{rule.code} must not report this example"
    elif example.after == example.before:
        # A rule that only reports (NPU015, the NPU05x range) shows a site it warns about.
        assert result.new_data is None, f"{rule.code} must not rewrite this example"
        assert result.warnings, f"{rule.code} must report this example"
    else:
        assert result.new_data is not None and result.new_data.decode() == example.after


XPU = dataclasses.replace(
    NPU,
    name="xpu",
    device_type="xpu",
    dist_backend="xccl",
    runtime_module="torch_xpu",
    safety_net_module="torch_xpu.contrib.transfer_to_xpu",
    patcher_module="xpu_driving.patcher",
    runtime_requirement="torch-xpu",
    env={
        name: EnvMapping(
            m.source,
            m.target.replace("ASCEND", "XPU").replace("HCCL", "XCCL").replace("NPU", "XPU")
            if m.target
            else None,
            m.scale,
            m.note,
        )
        for name, m in NPU.env.items()
    },
    env_prefix=("NCCL_", "XCCL_"),
    tf32_flags={k: v.replace("npu", "xpu") for k, v in NPU.tf32_flags.items()},
    runtime_setup="source the XPU toolkit's environment script first",
)


def _npu_words(text: str) -> int:
    return len(re.findall(r"npu|hccl|ascend", text, flags=re.IGNORECASE))


GOLDEN = cases()


@pytest.mark.parametrize("case", GOLDEN, ids=[case.id for case in GOLDEN])
def test_target_is_data(case: object) -> None:
    """Migrating to another target introduces none of the NPU's names: rules read `Target`."""
    from tests.golden_cases import Case

    assert isinstance(case, Case)
    data = case.source.read_bytes()
    result = run_case(case, data, full=False, target=XPU)
    output = (result.new_data or data).decode()
    assert _npu_words(output) <= _npu_words(data.decode()), output


def _rule_with(**body: object) -> type[PythonRule]:
    namespace = {"code": "XTS001", "name": "x-test", "summary": "A test rule.", **body}
    return type("XTest", (PythonRule,), namespace)


def test_a_rule_with_the_old_hooks_is_refused_with_the_way_to_convert_it() -> None:
    old = _rule_with(tokens=("cuda",), whole_module=True)
    with pytest.raises(registry.RegistryError, match=r"declares tokens, whole_module.*Trigger"):
        registry.validate([old])


def test_a_python_rule_may_not_claim_the_text_unit() -> None:
    wrong = _rule_with(trigger=Trigger(tokens=("cuda",), unit=Unit.FILE))
    with pytest.raises(registry.RegistryError, match=r"unit=Unit\.FILE"):
        registry.validate([wrong])


def test_a_rule_expecting_a_construct_names_its_paths() -> None:
    unbounded = _rule_with(trigger=Trigger(tokens=("cuda",), always=expected_in_paths))
    with pytest.raises(registry.RegistryError, match="needs `paths`"):
        registry.validate([unbounded])
