"""DeepSpeed on the emulated host (runs only where deepspeed is installed).

DeepSpeed picks its NPU accelerator by importing torch_npu, uses torch.npu.* and the
hccl backend, and its NPU op builders read ASCEND_HOME_PATH; the emulator provides
all four, which is the hook this test holds in place.
"""

from __future__ import annotations

import importlib.util
import json
import math
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("deepspeed") is None, reason="deepspeed is not installed"
)


def test_zero2_bf16_step_on_the_npu(
    run_python: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    result = run_python(
        """
        import json, os
        os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE="1",
                          MASTER_ADDR="127.0.0.1", MASTER_PORT="29531")
        import torch, deepspeed
        from deepspeed.accelerator import get_accelerator
        model = torch.nn.Linear(8, 1)
        config = {"train_micro_batch_size_per_gpu": 4, "bf16": {"enabled": True},
                  "zero_optimization": {"stage": 2}}
        engine, *_ = deepspeed.initialize(
            model=model, optimizer=torch.optim.AdamW(model.parameters()), config=config)
        x = torch.randn(4, 8, device=engine.device, dtype=torch.bfloat16)
        engine.backward(engine(x).float().pow(2).mean())
        engine.step()
        param = next(engine.module.parameters())
        print(json.dumps({"accelerator": get_accelerator()._name,
                          "backend": torch.distributed.get_backend(),
                          "param": str(param.device), "dtype": str(param.dtype)}))
        """,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen == {
        "accelerator": "npu", "backend": "hccl", "param": "npu:0", "dtype": "torch.bfloat16",
    }  # fmt: skip


ZERO3_WORKER = """
import json, os, sys
import torch, deepspeed
rank = int(os.environ["RANK"])
torch.npu.set_device(rank)
torch.manual_seed(0)  # the same model on both ranks, so its state is known

class Block(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.a = torch.nn.Linear(n, 3 * n + 1)  # odd sizes: padded partitions
        self.b = torch.nn.Conv2d(3, n, 3)
        self.c = torch.nn.Parameter(torch.randn(7))

    def forward(self, x):
        return self.a(x[..., : self.a.in_features]).sum() + self.b.weight.sum() + self.c.sum()

model = torch.nn.ModuleList([Block(n) for n in (16, 33, 64, 5, 128, 9, 96, 2)]).to(torch.bfloat16)
model.forward = lambda x: sum(block(x) for block in model)
expected = {k: v.detach().clone() for k, v in model.state_dict().items()}
config = {"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": True},
          "zero_optimization": {"stage": 3, "stage3_param_persistence_threshold": 0,
                                "stage3_gather_16bit_weights_on_model_save": True},
          "optimizer": {"type": "AdamW", "params": {"lr": 1e-3, "torch_adam": True}}}
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                  config=config)
wrong = []
for attempt in range(3):  # what accelerate.get_state_dict does for a ZeRO-3 checkpoint
    state = engine._zero3_consolidated_16bit_state_dict()
    if rank == 0:
        wrong += [key for key, value in state.items() if not torch.equal(value, expected[key])]
loss = engine(torch.ones(1, 128, device="npu", dtype=torch.bfloat16)).float()
engine.backward(loss)
engine.step()
with open(os.path.join(sys.argv[1], f"rank{rank}.json"), "w") as out:
    json.dump({"wrong": wrong, "loss": loss.item(),
               "partition": str(next(engine.module.parameters()).ds_tensor.device)}, out)
"""


def test_zero3_two_ranks_gather_what_was_partitioned(
    tmp_path: Path, python_env: Callable[..., dict[str, str]]
) -> None:
    # ZeRO-3 waits on the last of several async all-gathers only and counts on the device
    # stream for the rest; the emulator must order collectives the same way, or a
    # consolidated checkpoint holds memory no all-gather has written yet.
    script = tmp_path / "zero3.py"
    script.write_text(ZERO3_WORKER)
    result = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
         "--master_port", str(_free_port()), str(script), str(tmp_path)],
        env=python_env(emulated=True, devices=2),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    seen = [json.loads((tmp_path / f"rank{rank}.json").read_text()) for rank in (0, 1)]
    assert seen[0]["wrong"] == []
    assert seen[0]["loss"] == seen[1]["loss"] and math.isfinite(seen[0]["loss"])
    assert [s["partition"] for s in seen] == ["npu:0", "npu:1"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
