"""What the emulator lacks fails loudly and names the API; CUDA is never faked."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest
import torch

from npu_emulator import NotEmulatedError


def test_missing_torch_npu_function_names_itself(npu: ModuleType) -> None:
    with pytest.raises(NotEmulatedError, match=r"emulator: torch\.npu\.set_dump is not emulated"):
        npu.set_dump("dump.json")
    assert not hasattr(npu, "set_dump")  # feature probes see an absent attribute
    assert isinstance(NotEmulatedError("x"), NotImplementedError)


def test_missing_torch_npu_operator_names_itself(npu: ModuleType) -> None:
    torch_npu = importlib.import_module("torch_npu")
    with pytest.raises(NotImplementedError, match=r"torch_npu\.npu_format_cast"):
        torch_npu.npu_format_cast(None, 2)
    with pytest.raises(NotImplementedError, match=r"torch_npu\.contrib\.module"):
        getattr(importlib.import_module("torch_npu.contrib"), "module")  # noqa: B009


def test_sparse_npu_tensors_name_the_gap(npu: ModuleType) -> None:
    with pytest.raises(NotImplementedError, match=r"npu tensors with layout torch\.sparse_coo"):
        torch.eye(2).to_sparse().to("npu")


def test_cuda_stays_absent(npu: ModuleType) -> None:
    assert not torch.cuda.is_available()
    assert torch.cuda.device_count() == 0
    with pytest.raises((AssertionError, RuntimeError), match="CUDA"):
        torch.zeros(1).cuda()


def test_torch_compile_runs_eagerly_and_says_so(npu: ModuleType) -> None:
    model = torch.nn.Linear(2, 2).npu()
    with pytest.warns(UserWarning, match="torch.compile is not emulated"):
        compiled = torch.compile(model)
    assert compiled is model
    with pytest.warns(UserWarning, match="torch.compile is not emulated"):

        @torch.compile(mode="max-autotune")
        def double(x: torch.Tensor) -> torch.Tensor:
            return x * 2

    assert double(torch.ones(1, device="npu")).tolist() == [2.0]


# Before, a compiled model ran eagerly and the report said nothing about it.
def test_a_compiled_model_that_ran_is_in_the_report(npu: ModuleType) -> None:
    from npu_emulator import compiler, report

    def runs() -> int:
        count: int = report.snapshot()["events"].get("torch_compile_ran", 0)
        return count

    model = torch.nn.Linear(2, 2).npu()
    before = runs()
    with pytest.warns(UserWarning, match="torch.compile is not emulated"):
        compiled = torch.compile(model)
    assert runs() == before, "compiling is not running"
    compiled(torch.ones(1, 2, device="npu"))
    snapshot = report.snapshot()
    assert runs() == before + 1
    assert "triton-ascend" in compiler.HOST_NOTE
    assert compiler.HOST_NOTE in snapshot["host_notes"]
