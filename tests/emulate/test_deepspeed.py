"""DeepSpeed on the emulated host (runs only where deepspeed is installed).

DeepSpeed picks its NPU accelerator by importing torch_npu, uses torch.npu.* and the
hccl backend, and its NPU op builders read ASCEND_HOME_PATH; the emulator provides
all four, which is the hook this test holds in place.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
from collections.abc import Callable

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
