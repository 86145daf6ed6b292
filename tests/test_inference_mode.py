"""NPU002's translations keep the grad mode torch.inference_mode had, run under torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from migrator.contract.rule import RuleOptions
from migrator.core.target import NPU
from migrator.engine.files import migrate_text
from migrator.engine.settings import Settings

torch = pytest.importorskip("torch")

SOURCE = """
import torch


def literal_true():
    with torch.inference_mode():
        return torch.is_grad_enabled()


def literal_false():
    with torch.inference_mode(mode=False):
        return torch.is_grad_enabled()


def expression(flag):
    with torch.inference_mode(mode=flag):
        return torch.is_grad_enabled()


@torch.inference_mode(not_flag)
def decorated():
    return torch.is_grad_enabled()
"""


def _functions(text: str, not_flag: bool) -> dict[str, Callable[..., Any]]:
    namespace: dict[str, Any] = {"not_flag": not_flag}
    exec(compile(text, "<probe>", "exec"), namespace)
    return namespace


def _migrated() -> str:
    result = migrate_text("probe.py", SOURCE.encode(), Settings(NPU, ("NPU002",), RuleOptions()))
    assert result.new_data is not None
    text = result.new_data.decode()
    assert "inference_mode" not in text
    return text


@pytest.mark.parametrize("outer_grad", [True, False], ids=["grad_on", "under_no_grad"])
@pytest.mark.parametrize("flag", [True, False])
def test_grad_mode_inside_matches(flag: bool, outer_grad: bool) -> None:
    before, after = _functions(SOURCE, flag), _functions(_migrated(), flag)
    with torch.set_grad_enabled(outer_grad):
        for name in ("literal_true", "literal_false", "decorated"):
            assert before[name]() == after[name](), name
        assert before["expression"](flag) == after["expression"](flag)
