"""The torch_npu, transfer_to_npu and mx_driving stand-ins."""

from __future__ import annotations

import importlib
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import torch

RunPython = Callable[..., subprocess.CompletedProcess[str]]


def test_torch_npu_exposes_torch_npu(npu: ModuleType) -> None:
    torch_npu = importlib.import_module("torch_npu")
    assert torch_npu.npu is torch.npu
    assert importlib.import_module("torch_npu.npu") is torch.npu
    assert torch_npu.__version__.endswith("+emulator")


def test_mx_driving_patcher_is_a_context_manager(run_python: RunPython) -> None:
    result = run_python(
        """
        import torch
        from mx_driving import default_patcher_builder as top
        from mx_driving.patcher import default_patcher_builder
        import numpy as np
        assert top is default_patcher_builder
        with default_patcher_builder.build() as patcher:
            entered = patcher
        print(type(entered).__name__, entered.applied, np.float is float)
        # importing mx_driving brought transfer_to_npu along, as the real package does
        print(torch.cuda.is_available())
        import mx_driving.patcher
        try:
            mx_driving.patcher.default_patcher
        except NotImplementedError as e:
            print(e)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "Patcher True True",
        "True",
        "npu emulator: mx_driving.patcher.default_patcher is not emulated",
    ]


def test_transfer_to_npu_sends_cuda_calls_to_the_npu(run_python: RunPython, tmp_path: Path) -> None:
    result = run_python(
        """
        import json, sys, warnings
        import torch
        import torch.distributed as dist
        import torch_npu
        from torch_npu.contrib import transfer_to_npu
        model = torch.nn.Linear(2, 2).cuda()
        x = torch.ones(1, 2, device="cuda")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with torch.autocast("cuda", dtype=torch.bfloat16):
                y = model(x)
            with torch.cuda.amp.autocast(dtype=torch.bfloat16):
                z = model(x)
        torch.cuda.set_device(0)
        torch.cuda.synchronize()
        dist.init_process_group("nccl", init_method="file://" + sys.argv[1], rank=0, world_size=1)
        reduced = torch.ones(2, device="cuda")
        dist.all_reduce(reduced)
        print(json.dumps({
            "backend": dist.get_backend(),
            "reduced": str(reduced.device),
            "available": torch.cuda.is_available(),
            "count": torch.cuda.device_count(),
            "model": str(model.weight.device),
            "x": str(x.device),
            "to": str(torch.zeros(1).to("cuda:0").device),
            "new": str(x.new_zeros(2, device="cuda").device),
            "y": str(y.dtype),
            "z": str(z.dtype),
            "gen": str(torch.Generator(device="cuda").device),
            "memory": torch.cuda.memory_allocated() > 0,
            "script": torch.jit.script(len) is len,
            "warnings": [str(w.message) for w in caught],
        }))
        """,
        args=[str(tmp_path / "store")],
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["available"] is True and seen["count"] == 1
    assert seen["model"] == seen["x"] == seen["to"] == seen["new"] == "npu:0"
    assert seen["y"] == seen["z"] == "torch.bfloat16"
    assert seen["gen"] == "npu:0"
    assert seen["memory"] and seen["script"]
    assert seen["warnings"] == []
    assert seen["backend"] == "hccl" and seen["reduced"] == "npu:0"
