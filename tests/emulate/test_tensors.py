"""Tensors and modules really live on the npu, with a device's rules."""

from __future__ import annotations

import copy
import json
import subprocess
import weakref
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
import torch

from npu_emulator.trace import record_ops


def test_factories_create_npu_tensors(npu: ModuleType) -> None:
    made = [
        torch.zeros(2, 3, device="npu"),
        torch.ones(2, device="npu:0", dtype=torch.bfloat16),
        torch.full((2,), 7.0, device=torch.device("npu")),
        torch.arange(4, device="npu"),
        torch.randn(3, device="npu"),
        torch.tensor([1.0, 2.0], device="npu"),
        torch.as_tensor([1, 2], device="npu"),
        torch.eye(2, device="npu"),
    ]
    for tensor in made:
        assert tensor.device == torch.device("npu:0")
        assert tensor.is_npu
    assert made[1].dtype == torch.bfloat16
    assert made[2].tolist() == [7.0, 7.0]


def test_data_moves_to_and_from_the_npu(npu: ModuleType) -> None:
    host = torch.arange(6.0).reshape(2, 3)
    on_npu = host.to("npu")
    assert on_npu.device.type == "npu"
    assert host.npu().device.type == "npu"
    back = (on_npu * 2).cpu()
    assert back.device.type == "cpu" and type(back) is torch.Tensor
    assert torch.equal(back, host * 2)
    back[0, 0] = 100.0  # .cpu() is a copy, never a view of npu memory
    assert on_npu[0, 0].item() == 0.0


def test_to_cpu_copies_in_inference_mode_too(npu: ModuleType) -> None:
    on_npu = torch.ones(2, device="npu")
    with torch.inference_mode():
        host = (on_npu * 3).cpu()
    assert type(host) is torch.Tensor and host.tolist() == [3.0, 3.0]


def test_module_to_npu_keeps_parameter_objects(npu: ModuleType) -> None:
    model = torch.nn.Linear(3, 2)
    weight = model.weight
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.to("npu")
    assert model.weight is weight  # an optimizer made before .to() still holds it
    assert weight.device == torch.device("npu:0")
    assert isinstance(weight, torch.nn.Parameter)
    model(torch.ones(1, 3, device="npu")).sum().backward()
    optimizer.step()
    assert model.weight.grad is not None and model.weight.grad.device.type == "npu"


def test_module_to_npu_moves_weakly_referenced_parameters(npu: ModuleType) -> None:
    model = torch.nn.Linear(2, 2)
    ref = weakref.ref(model.weight)  # DeepSpeed and others keep weak tables of params
    model.npu()
    assert ref() is model.weight and model.weight.device.type == "npu"


def test_npu_tensors_print_like_device_tensors(npu: ModuleType) -> None:
    text = repr(torch.tensor([1.5, 2.0], device="npu"))
    assert text == "tensor([1.5000, 2.0000], device='npu:0')"
    assert f"{torch.tensor(2.5, device='npu'):.1f}" == "2.5"
    bias = torch.nn.Parameter(torch.zeros(2, device="npu"))
    assert repr(bias) == (
        "Parameter containing:\ntensor([0., 0.], device='npu:0', requires_grad=True)"
    )


def test_numpy_needs_a_copy_to_the_host_first(npu: ModuleType) -> None:
    with pytest.raises(TypeError, match="can't convert npu:0 device type tensor to numpy"):
        torch.ones(2, device="npu").numpy()
    assert torch.ones(2, device="npu").cpu().numpy().tolist() == [1.0, 1.0]


def test_bf16_to_numpy_fails_as_it_does_on_every_device(npu: ModuleType) -> None:
    with pytest.raises(TypeError, match="BFloat16"):
        torch.ones(2, device="npu", dtype=torch.bfloat16).cpu().numpy()


def test_mixing_npu_and_cpu_tensors_fails_like_a_device(npu: ModuleType) -> None:
    with pytest.raises(RuntimeError, match="same device, but found at least two devices"):
        torch.ones(2, device="npu") + torch.ones(2)
    with pytest.raises(RuntimeError, match="same device"):
        torch.zeros(2, device="npu").set_(torch.ones(3))  # would alias host memory
    # A 0-dim CPU tensor is a scalar, allowed on devices; CPU index tensors are too.
    assert (torch.ones(2, device="npu") * torch.tensor(3.0)).tolist() == [3.0, 3.0]
    assert torch.arange(4.0, device="npu")[torch.tensor([1, 3])].tolist() == [1.0, 3.0]


def test_in_place_ops_return_the_same_tensor(npu: ModuleType) -> None:
    x = torch.zeros(3, device="npu")
    assert x.add_(1) is x
    assert x.tolist() == [1.0, 1.0, 1.0]
    out = torch.empty(3, device="npu")
    assert torch.mul(x, 2, out=out) is out and out.tolist() == [2.0, 2.0, 2.0]


def test_ops_that_change_shape_in_place_update_the_tensor(npu: ModuleType) -> None:
    x = torch.zeros(3, device="npu")
    x.unsqueeze_(0)
    assert x.shape == (1, 3)
    out = torch.empty(0, device="npu")
    torch.add(torch.ones(4, device="npu"), 1, out=out)
    assert out.shape == (4,) and out.tolist() == [2.0] * 4


def test_data_assignment_swaps_the_storage(npu: ModuleType) -> None:
    param = torch.nn.Parameter(torch.zeros(2, device="npu"))
    param.data = torch.ones(3, device="npu")
    assert param.shape == (3,) and param.tolist() == [1.0, 1.0, 1.0]


def test_deepcopy_gives_an_independent_npu_copy(npu: ModuleType) -> None:
    model = torch.nn.Linear(2, 2).npu()
    clone = copy.deepcopy(model)
    assert clone.weight.device.type == "npu"
    assert torch.equal(clone.weight.cpu(), model.weight.cpu())
    with torch.no_grad():
        clone.weight.add_(1.0)
    assert not torch.equal(clone.weight.cpu(), model.weight.cpu())


def test_ops_run_on_the_npu_are_observable(npu: ModuleType) -> None:
    a = torch.ones(2, 2, device="npu")
    with record_ops() as log:
        (a @ a).sum()
    assert "aten.mm.default" in log.names()
    assert all(call.index == 0 for call in log)


def test_data_assignment_moves_a_parameter_in_place_across_devices(npu: ModuleType) -> None:
    """`param.data = param.data.to("npu")` (DeepSpeed ZeRO-3's move) keeps the object,
    requires_grad and the Python attributes DeepSpeed stores on it, both ways."""
    param = torch.nn.Parameter(torch.arange(3.0))
    param.ds_id = 7  # type: ignore[attr-defined]
    same = param
    param.data = param.data.to("npu")
    assert param is same and param.is_npu and param.requires_grad
    assert isinstance(param, torch.nn.Parameter)
    assert param.ds_id == 7  # type: ignore[attr-defined]
    assert param.tolist() == [0.0, 1.0, 2.0]
    param.data = param.data.cpu()
    assert param is same and not param.is_npu and param.ds_id == 7  # type: ignore[attr-defined]
    plain = torch.zeros(2)
    plain.data = torch.ones(2)
    assert plain.tolist() == [1.0, 1.0], "same-device assignments are PyTorch's own"


def test_module_to_npu_keeps_attributes_on_parameters(npu: ModuleType) -> None:
    layer = torch.nn.Linear(2, 2)
    layer.weight.ds_id = 3  # type: ignore[attr-defined]
    layer.to("npu")
    assert layer.weight.is_npu and layer.weight.ds_id == 3  # type: ignore[attr-defined]


def test_to_the_card_a_tensor_is_on_returns_it_on_every_card(
    run_python: Callable[..., subprocess.CompletedProcess[str]],
    python_env: Callable[..., dict[str, str]],
) -> None:
    # As on a real device, `.to()` aliases when nothing changes: ZeRO-3 points a parameter
    # at `buffer.narrow(...).to(param.device)` before an async all-gather fills the buffer,
    # so a copy there leaves the parameter holding uninitialised memory on every rank but 0.
    result = run_python(
        """
        import json, torch
        on_card_0 = torch.ones(1, device="npu")
        torch.npu.set_device(1)
        x = torch.zeros(4, device="npu:1")
        same = {
            repr(d): x.to(d) is x
            for d in ["npu", "npu:1", torch.device("npu", 1), torch.device("npu")]
        }
        same["dtype"] = x.to(torch.float32) is x
        same["like"] = x.to(torch.ones(1, device="npu:1")) is x
        same["keywords"] = x.to(device="npu:1", dtype=torch.float32, non_blocking=True) is x
        same["positional"] = x.to("npu:1", torch.float32, False, False) is x
        moved = {
            "npu:0": x.to("npu:0").device.index,
            "half": str(x.to("npu:1", torch.float16).dtype),
            "copy": x.to("npu:1", copy=True) is x,
            "positional copy": x.to("npu:1", torch.float32, False, True) is x,
            "dtype copy": x.to(torch.float32, False, True) is x,
            "other card like": x.to(on_card_0).device.index,
        }
        torch.npu.set_device(0)
        moved["current card"] = x.to("npu").device.index
        y = x.to("npu:0")
        y.add_(1)
        print(json.dumps({"same": same, "moved": moved, "x": x.tolist()}))
        """,
        env=python_env(emulated=True, devices=2),
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert all(seen["same"].values()), seen["same"]
    assert seen["moved"] == {
        "npu:0": 0,
        "half": "torch.float16",
        "copy": False,
        "positional copy": False,
        "dtype copy": False,
        "other card like": 0,
        "current card": 0,
    }
    assert seen["x"] == [0.0, 0.0, 0.0, 0.0]  # the copy on npu:0 is its own memory


# Before the fix each view raised "Cannot set version_counter for inference tensor"
# (ZeRO-3's forward hooks take such views of parameters under inference_mode).
@pytest.mark.parametrize(
    "view",
    [lambda x: x.detach(), lambda x: x.view(20), lambda x: x.t(), lambda x: x[0],
     lambda x: x[:, 1]],
    ids=["detach", "view", "t", "select", "slice"],
)  # fmt: skip
def test_views_in_inference_mode_of_tensors_made_outside_it(npu: ModuleType, view: Any) -> None:
    x = torch.randn(4, 5, device="npu")
    with torch.inference_mode():
        out = view(x)
        fresh = x + 1
    # As on the CPU: a view of a normal tensor stays normal, a new result is an inference one.
    assert (out.is_inference(), fresh.is_inference()) == (False, True)
    assert out.device == x.device
    x.add_(1)
    assert torch.equal(out.cpu(), view(x).cpu()), "the view shares its base's memory"


# Before, both casts gave float64 (a CPU's answer; an NPU host has no double).
@pytest.mark.parametrize(
    "cast",
    [lambda x: x.double(), lambda x: x.to(torch.float64), lambda x: x.to(dtype=torch.float64)],
    ids=["double", "to_dtype", "to_dtype_keyword"],
)
def test_a_double_cast_of_an_npu_tensor_gives_float_with_the_hosts_warning(
    npu: ModuleType, cast: Any
) -> None:
    from npu_emulator import dispatch

    dispatch._WARNED_DOUBLE.clear()
    x = torch.randn(3, device="npu", requires_grad=True)
    with pytest.warns(UserWarning, match=r"Device do not support double dtype now, dtype cast"):
        y = cast(x)
    assert y.dtype == torch.float32 and y.device == x.device
    y.sum().backward()
    assert x.grad is not None and x.grad.dtype == torch.float32
    assert x.detach().cpu().double().dtype == torch.float64, "CPU tensors keep double"
