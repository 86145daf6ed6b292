"""Autocast on the npu: bf16/fp16 regions cast, fp32 regions are switched off."""

from __future__ import annotations

from types import ModuleType

import pytest
import torch

from npu_emulator import autocast_ops
from npu_emulator._torch import aten_op
from npu_emulator.trace import record_ops


@pytest.mark.parametrize(
    "name",
    [n for names in (autocast_ops.LOWER_PRECISION, autocast_ops.FLOAT32) for n in names]
    + list(autocast_ops.FLOAT32_UNLESS_DTYPE + autocast_ops.PROMOTE + autocast_ops.BANNED),
)
def test_every_listed_op_exists(name: str) -> None:
    assert aten_op(name).name().startswith("aten::")


def test_bf16_region_computes_matmuls_in_bf16(npu: ModuleType) -> None:
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.LayerNorm(8)).npu()
    x = torch.randn(4, 8, device="npu")
    with record_ops() as log, torch.autocast("npu", dtype=torch.bfloat16):
        hidden = model[0](x)
        normed = model[1](hidden)
    assert hidden.dtype == torch.bfloat16
    assert normed.dtype == torch.float32  # layer_norm is on the float32 list, as on CUDA
    addmm = log.calls("aten.addmm")
    assert addmm and all(set(call.dtypes) == {torch.bfloat16} for call in addmm)


def test_bf16_region_backward_reaches_fp32_weights(npu: ModuleType) -> None:
    layer = torch.nn.Linear(4, 2).npu()
    with torch.autocast("npu", dtype=torch.bfloat16):
        out = layer(torch.randn(3, 4, device="npu"))
    out.float().sum().backward()
    assert layer.weight.grad is not None and layer.weight.grad.dtype == torch.float32


def test_ops_outside_the_lists_pass_through_a_region(npu: ModuleType) -> None:
    x = torch.randn(4, device="npu")
    with torch.autocast("npu", dtype=torch.bfloat16):
        assert torch.nn.functional.gelu(x).dtype == torch.float32
        assert torch.softmax(x.bfloat16(), 0).dtype == torch.float32


def test_fp16_region_computes_in_fp16(npu: ModuleType) -> None:
    with torch.npu.amp.autocast(dtype=torch.float16):
        out = torch.nn.functional.linear(
            torch.randn(2, 3, device="npu"), torch.randn(4, 3, device="npu")
        )
    assert out.dtype == torch.float16


def test_fp32_region_is_switched_off_with_a_warning(npu: ModuleType) -> None:
    layer = torch.nn.Linear(4, 4).npu().to(torch.bfloat16)
    feats = torch.randn(2, 4, device="npu", dtype=torch.bfloat16)
    with pytest.warns(UserWarning, match="target dtype is not supported. Disabling autocast"):
        region = torch.autocast("npu", dtype=torch.float32)
    with region:
        assert not torch.is_autocast_enabled("npu")
        out = layer(feats)
    # On CUDA this region would have produced float32; on the npu it stays bf16.
    assert out.dtype == torch.bfloat16


def test_fp32_region_inside_a_bf16_region_also_turns_casting_off(npu: ModuleType) -> None:
    x = torch.randn(2, 4, device="npu")
    with torch.autocast("npu", dtype=torch.bfloat16):
        with (
            pytest.warns(UserWarning, match="not supported"),
            torch.autocast("npu", dtype=torch.float32),
        ):
            inner = torch.nn.functional.linear(x, torch.randn(3, 4, device="npu"))
        outer = torch.nn.functional.linear(x, torch.randn(3, 4, device="npu"))
    assert inner.dtype == torch.float32  # no cast at all, not an fp32 cast
    assert outer.dtype == torch.bfloat16


def test_banned_op_is_refused_in_a_region(npu: ModuleType) -> None:
    probs = torch.rand(4, device="npu")
    with (
        torch.autocast("npu", dtype=torch.bfloat16),
        pytest.raises(RuntimeError, match="unsafe to autocast"),
    ):
        torch.nn.functional.binary_cross_entropy(probs, probs)


def test_cuda_region_is_disabled_as_on_a_host_without_cuda(npu: ModuleType) -> None:
    with pytest.warns(UserWarning, match="CUDA is not available"):
        region = torch.autocast("cuda", dtype=torch.bfloat16)
    with region:
        out = torch.nn.functional.linear(
            torch.randn(2, 3, device="npu"), torch.randn(4, 3, device="npu")
        )
    assert out.dtype == torch.float32


# Before the fix, each of these raised "log_softmax() expected at most 3 argument(s) but
# received 4": the float32 policy added a dtype keyword next to a positional one.
@pytest.mark.parametrize(
    "call",
    [
        lambda x, y: torch.nn.functional.cross_entropy(x, y),
        lambda x, y: torch.log_softmax(x, 1, torch.float32),
        lambda x, y: torch.nn.functional.log_softmax(x, dim=1, dtype=torch.float32),
        lambda x, y: torch.softmax(x, -1, torch.float32),
        lambda x, y: torch.nn.functional.softmax(x, dim=-1, dtype=torch.float32),
    ],
    ids=["cross_entropy", "log_softmax_positional", "log_softmax_keyword", "softmax_positional",
         "softmax_keyword"],
)  # fmt: skip
def test_softmax_with_an_explicit_dtype_runs_in_a_region(npu: ModuleType, call: object) -> None:
    x = torch.randn(4, 5, device="npu", requires_grad=True)
    y = torch.tensor([0, 1, 2, 3], device="npu")
    with torch.autocast("npu", dtype=torch.bfloat16):
        out = call(x.bfloat16(), y)  # type: ignore[operator]
    assert out.dtype == torch.float32
    out.sum().backward()
    assert x.grad is not None and torch.isfinite(x.grad.cpu()).all()


def test_a_given_dtype_wins_over_the_float32_policy(npu: ModuleType) -> None:
    x = torch.randn(4, 5, device="npu")
    with torch.autocast("npu", dtype=torch.bfloat16):
        assert torch.log_softmax(x, 1, torch.bfloat16).dtype == torch.bfloat16
        assert torch.softmax(x.bfloat16(), -1).dtype == torch.float32
        assert x.bfloat16().sum(dtype=torch.bfloat16).dtype == torch.bfloat16
