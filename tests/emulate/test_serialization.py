"""torch.save / torch.load of npu tensors, with torch_npu's "npu:N" location tags."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import torch


def _saved(obj: object) -> io.BytesIO:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return buffer


def test_state_dict_comes_back_on_the_npu(npu: ModuleType) -> None:
    model = torch.nn.Linear(3, 2).npu()
    loaded = torch.load(_saved(model.state_dict()))
    assert loaded["weight"].device == torch.device("npu:0")
    assert torch.equal(loaded["weight"].cpu(), model.weight.detach().cpu())


def test_weights_only_load_accepts_npu_checkpoints(npu: ModuleType) -> None:
    state = {"w": torch.randn(4, device="npu", dtype=torch.bfloat16), "step": 3}
    loaded = torch.load(_saved(state), weights_only=True)
    assert loaded["w"].device.type == "npu" and loaded["w"].dtype == torch.bfloat16
    assert loaded["step"] == 3


def test_map_location_cpu_gives_host_tensors(npu: ModuleType) -> None:
    state = {"w": torch.ones(2, device="npu")}
    for location in ("cpu", torch.device("cpu"), {"npu:0": "cpu"}, lambda s, _: s):
        loaded = torch.load(_saved(state), map_location=location)
        assert type(loaded["w"]) is torch.Tensor and loaded["w"].device.type == "cpu"


def test_map_location_npu_moves_host_checkpoints(npu: ModuleType) -> None:
    state = torch.nn.Linear(2, 2).state_dict()  # saved from the CPU
    for location in ("npu", "npu:0", torch.device("npu", 0), {"cpu": "npu:0"}):
        loaded = torch.load(_saved(state), map_location=location)
        assert loaded["weight"].device == torch.device("npu:0")


def test_shared_storage_stays_shared(npu: ModuleType) -> None:
    base = torch.arange(4.0, device="npu")
    loaded = torch.load(_saved({"base": base, "view": base[2:]}))
    loaded["base"][3] = 10.0
    assert loaded["view"].tolist() == [2.0, 10.0]


def test_whole_module_and_optimizer_state_round_trip(npu: ModuleType) -> None:
    model = torch.nn.Linear(2, 1).npu()
    optimizer = torch.optim.AdamW(model.parameters(), fused=True)
    model(torch.ones(1, 2, device="npu")).sum().backward()
    optimizer.step()
    loaded = torch.load(_saved({"model": model, "opt": optimizer.state_dict()}), weights_only=False)
    assert isinstance(loaded["model"].weight, torch.nn.Parameter)
    assert loaded["model"].weight.device.type == "npu"
    assert loaded["opt"]["state"][0]["exp_avg"].device.type == "npu"


def test_checkpoint_needs_map_location_on_a_host_without_npu(
    npu: ModuleType, tmp_path: Path, run_python: Callable[..., object]
) -> None:
    path = tmp_path / "ckpt.pt"
    torch.save({"w": torch.full((2,), 5.0, device="npu")}, path)
    result = run_python(
        """
        import sys, torch
        try:
            torch.load(sys.argv[1])
        except Exception as e:
            print("plain load:", e)
        print("cpu load:", torch.load(sys.argv[1], map_location="cpu")["w"].tolist())
        """,
        emulated=False,
        args=[str(path)],
    )
    assert result.returncode == 0, result.stderr  # type: ignore[attr-defined]
    assert "tagged with npu:0" in result.stdout  # type: ignore[attr-defined]
    assert "cpu load: [5.0, 5.0]" in result.stdout  # type: ignore[attr-defined]
