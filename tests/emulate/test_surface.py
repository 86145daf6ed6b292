"""The emulator's torch.npu / torch_npu names agree with the released API data.

Every public name of the data's torch_npu modules, in any release, is either provided by
the emulator (the module's ``__all__``) or a documented gap (``surface.GAPS``); everything
provided exists in every release; no gap names a name the data does not have.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType

import pytest

from npu_emulator import NotEmulatedError, releases, surface

MODULES = ("torch_npu", "torch_npu.npu", "torch_npu.npu.amp", "torch_npu.contrib")


def _in_any_release(module: str) -> frozenset[str]:
    found = [releases.public_names(module, v) or frozenset() for v in releases.known()]
    return functools.reduce(frozenset.union, found)


def _provided(module: str) -> frozenset[str]:
    names: list[str] = importlib.import_module(module).__all__
    # Underscored names are torch_npu internals the emulator needs (``_lazy_call``).
    return frozenset(n for n in names if not n.startswith("_"))


@pytest.mark.parametrize("module", MODULES)
def test_every_name_of_the_data_is_provided_or_a_documented_gap(
    npu: ModuleType, module: str
) -> None:
    undecided = sorted(
        n for n in _in_any_release(module) - _provided(module) if surface.gap(module, n) is None
    )
    assert undecided == [], f"{module}: provide these or add them to surface.GAPS with a reason"


@pytest.mark.parametrize("module", MODULES)
def test_every_provided_name_exists_in_every_release(npu: ModuleType, module: str) -> None:
    for release in releases.known():
        extra = _provided(module) - (releases.public_names(module, release) or frozenset())
        assert extra == frozenset(), f"torch-npu {release} has no {module}.{sorted(extra)}"


@pytest.mark.parametrize("module", MODULES)
def test_no_gap_is_stale_or_also_provided(npu: ModuleType, module: str) -> None:
    known = _in_any_release(module)
    for gap in surface.GAPS[module]:
        assert gap.names <= known, f"not in the data: {sorted(gap.names - known)}"
        # A pattern names a family (`npu_*`) whose provided members are the exceptions.
        assert not gap.names & _provided(module), gap.reason
        assert any(gap.covers(n) for n in known), f"covers nothing: {gap.reason}"


def test_a_gap_fails_loudly_with_its_reason(npu: ModuleType) -> None:
    with pytest.raises(NotEmulatedError, match=r"torch\.npu\.NPUGraph is not emulated.*graphs"):
        npu.NPUGraph()
    torch_npu = importlib.import_module("torch_npu")
    with pytest.raises(NotEmulatedError, match=r"torch_npu\.npu_swiglu .*custom operator"):
        torch_npu.npu_swiglu(None)


# Before, every name was "not emulated", even one no torch-npu release has.
def test_a_name_the_release_lacks_is_absent_as_on_the_host(npu: ModuleType) -> None:
    with pytest.raises(AttributeError, match=r"torch-npu \S+ has no torch\.npu\.foo\)") as caught:
        npu.foo  # noqa: B018
    assert not isinstance(caught.value, NotImplementedError)
    assert not hasattr(npu.amp, "ShardedGradScaler")


def test_a_name_of_a_newer_release_says_which_has_it() -> None:
    oldest = releases.public_names("torch_npu.npu", "2.6.0") or frozenset()
    newer = sorted(_in_any_release("torch_npu.npu") - oldest)
    assert newer, "the data's releases differ"
    assert releases.releases_with("torch_npu.npu", newer[0])[0] != "2.6.0"
