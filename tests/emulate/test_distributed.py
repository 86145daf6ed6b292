"""The "hccl" backend across two processes, and accelerate on the emulated host."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

PythonEnv = Callable[..., dict[str, str]]
RunPython = Callable[..., subprocess.CompletedProcess[str]]

WORKER = """
import json, sys
import torch, torch.distributed as dist
rank, port = int(sys.argv[1]), sys.argv[2]
torch.npu.set_device(rank)
dist.init_process_group("hccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
summed = torch.full((3,), float(rank + 1), device="npu")
dist.all_reduce(summed)
gathered = [torch.zeros(2, device="npu") for _ in range(2)]
dist.all_gather(gathered, torch.full((2,), float(rank), device="npu"))
torch.manual_seed(rank)
model = torch.nn.Linear(3, 1).npu()
ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank])
ddp(torch.randn(4, 3, device="npu")).sum().backward()
print(json.dumps({
    "backend": dist.get_backend(),
    "summed": summed.tolist(), "summed_device": str(summed.device),
    "gathered": [t.tolist() for t in gathered],
    "grad": model.weight.grad.tolist(), "grad_device": str(model.weight.grad.device),
}))
dist.destroy_process_group()
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _run_two_ranks(worker: str, python_env: PythonEnv) -> list[dict[str, object]]:
    env = python_env(emulated=True, devices=2)
    port = str(_free_port())
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", worker, str(rank), port],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    outputs = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=90)
            assert proc.returncode == 0, err
            outputs.append(json.loads(out))
    finally:
        for proc in procs:
            proc.kill()
    return outputs


def test_hccl_collectives_across_two_processes(python_env: PythonEnv) -> None:
    outputs = _run_two_ranks(WORKER, python_env)
    for rank, seen in enumerate(outputs):
        assert seen["backend"] == "hccl"
        assert seen["summed"] == [3.0, 3.0, 3.0]
        assert seen["summed_device"] == f"npu:{rank}"
        assert seen["gathered"] == [[0.0, 0.0], [1.0, 1.0]]
        assert seen["grad_device"] == f"npu:{rank}"
    # DDP averaged the gradients of two different batches: both ranks hold the same.
    assert outputs[0]["grad"] == outputs[1]["grad"]


POINT_TO_POINT_WORKER = """
import json, sys
import torch, torch.distributed as dist
rank, port = int(sys.argv[1]), sys.argv[2]
torch.npu.set_device(rank)
dist.init_process_group("hccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
# Both ranks send first, then receive: fine on a device, a deadlock if sends blocked.
mine, theirs = torch.full((4,), float(rank), device="npu"), torch.empty(4, device="npu")
sent = dist.isend(mine, 1 - rank)
received = dist.irecv(theirs, 1 - rank)
sent.wait()
received.wait()
print(json.dumps({"received": theirs.tolist()}))
dist.destroy_process_group()
"""


def test_point_to_point_stays_asynchronous(python_env: PythonEnv) -> None:
    # Collectives on npu tensors complete before they return (see distributed.py);
    # sends and receives must not, or this exchange would hang.
    outputs = _run_two_ranks(POINT_TO_POINT_WORKER, python_env)
    for rank, seen in enumerate(outputs):
        assert seen["received"] == [float(1 - rank)] * 4


def test_accelerator_picks_the_npu(run_python: RunPython) -> None:
    result = run_python(
        """
        import torch
        from accelerate import Accelerator
        from accelerate.utils import is_npu_available
        accelerator = Accelerator()
        model = accelerator.prepare(torch.nn.Linear(2, 2))
        print(is_npu_available(), accelerator.device, model.weight.device,
              accelerator.distributed_type)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "npu", "npu:0", "DistributedType.NO"]


def test_accelerate_launch_two_processes_over_hccl(tmp_path: Path, python_env: PythonEnv) -> None:
    script = tmp_path / "job.py"
    script.write_text(
        textwrap.dedent(
            """
            import json, sys, torch
            from accelerate import Accelerator
            accelerator = Accelerator()
            model = torch.nn.Linear(4, 1)
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, fused=True)
            model, optimizer = accelerator.prepare(model, optimizer)
            x = torch.randn(8, 4, device=accelerator.device)
            loss = model(x).pow(2).mean()
            accelerator.backward(loss)
            optimizer.step()
            total = accelerator.reduce(torch.ones(1, device=accelerator.device), "sum")
            # One file per rank: the ranks share stdout, where lines can interleave.
            with open(f"{sys.argv[1]}/rank{accelerator.process_index}.json", "w") as out:
                json.dump({
                "rank": accelerator.process_index,
                "type": str(accelerator.distributed_type),
                "backend": torch.distributed.get_backend(),
                "device": str(accelerator.device),
                "param": str(next(model.parameters()).device),
                "total": total.item(),
                }, out)
            """
        )
    )
    result = subprocess.run(
        [
            sys.executable, "-m", "accelerate.commands.launch",
            "--num_processes", "2", "--main_process_port", str(_free_port()),
            str(script), str(tmp_path),
        ],
        env=python_env(emulated=True, devices=2),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    ranks = [json.loads(path.read_text()) for path in sorted(tmp_path.glob("rank*.json"))]
    assert [seen["rank"] for seen in ranks] == [0, 1]
    for seen in ranks:
        assert seen["type"] == "DistributedType.MULTI_NPU"
        assert seen["backend"] == "hccl"
        assert seen["device"] == seen["param"] == f"npu:{seen['rank']}"
        assert seen["total"] == 2.0


# Before, the emulated hccl group reduced CPU tensors (its gloo serves "cpu" too).
def test_a_collective_on_cpu_tensors_in_an_hccl_group_fails_as_on_a_host(
    run_python: RunPython,
) -> None:
    done = run_python(
        f"""
        import torch, torch.distributed as dist
        dist.init_process_group(
            "hccl", init_method="tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1
        )
        on_npu = torch.ones(2, device="npu")
        dist.all_reduce(on_npu)
        gloo = dist.new_group(backend="gloo")
        dist.all_reduce(torch.ones(2), group=gloo)  # a gloo group serves the CPU
        try:
            dist.all_reduce(torch.ones(2))
        except RuntimeError as error:
            print("REFUSED", error)
        try:
            dist.all_gather([torch.zeros(2)], torch.ones(2))
        except RuntimeError as error:
            print("REFUSED", error)
        dist.destroy_process_group()
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("REFUSED No backend type associated with device type cpu") == 2
