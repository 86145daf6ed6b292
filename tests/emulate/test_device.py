"""The "npu" device and the torch.npu module."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from types import ModuleType

import pytest
import torch


def test_npu_is_a_torch_device(npu: ModuleType) -> None:
    assert torch.device("npu:0").type == "npu"
    assert torch.npu is npu
    assert npu.is_available()
    assert npu.device_count() == 1
    assert torch.accelerator.current_accelerator() == torch.device("npu")
    assert torch.accelerator.device_count() == 1


def test_install_is_idempotent(npu: ModuleType) -> None:
    from npu_emulator import install, is_installed

    install()
    install()
    assert is_installed() and torch.npu is npu


def test_torch_npu_module_reports_an_ascend_card(npu: ModuleType) -> None:
    assert npu.current_device() == 0
    assert npu.is_bf16_supported()
    assert npu.get_amp_supported_dtype() == [torch.float16, torch.bfloat16]
    assert "Ascend910B" in npu.get_device_name(0)
    assert npu.get_device_properties(0).total_memory == 64 * 1024**3


def test_set_device_rejects_a_card_the_host_lacks(npu: ModuleType) -> None:
    npu.set_device("npu:0")
    with pytest.raises(RuntimeError, match="invalid device npu:1"):
        npu.set_device(1)


def test_memory_statistics_follow_npu_allocations(npu: ModuleType) -> None:
    npu.empty_cache()
    npu.reset_peak_memory_stats()
    before = npu.memory_allocated()
    block = torch.empty(1024, 1024, device="npu")  # 4 MiB
    assert npu.memory_allocated() - before == 4 * 1024**2
    assert npu.max_memory_allocated() >= before + 4 * 1024**2
    assert npu.memory_reserved() >= npu.memory_allocated()
    del block
    assert npu.memory_allocated() == before
    assert npu.max_memory_allocated() >= before + 4 * 1024**2  # the peak stays
    assert npu.memory_reserved() >= before + 4 * 1024**2  # cached until empty_cache
    npu.empty_cache()
    npu.reset_peak_memory_stats()
    assert npu.memory_reserved() == npu.memory_allocated() == npu.max_memory_allocated()
    assert npu.memory_stats()["allocated_bytes.all.current"] == before


def test_views_share_their_base_memory(npu: ModuleType) -> None:
    before = npu.memory_allocated()
    base = torch.zeros(256, device="npu")
    views = [base[1:], base.view(16, 16), base.unsqueeze(0)]
    assert npu.memory_allocated() - before == 256 * 4
    del base, views


def test_seeding_the_npu_makes_its_random_ops_repeat(npu: ModuleType) -> None:
    npu.manual_seed(7)
    a = torch.randn(5, device="npu")
    drop_a = torch.nn.functional.dropout(torch.ones(64, device="npu"), 0.5)
    npu.manual_seed(7)
    b = torch.randn(5, device="npu")
    drop_b = torch.nn.functional.dropout(torch.ones(64, device="npu"), 0.5)
    assert torch.equal(a.cpu(), b.cpu())
    assert torch.equal(drop_a.cpu(), drop_b.cpu())


def test_npu_and_cpu_random_streams_are_separate(npu: ModuleType) -> None:
    torch.manual_seed(3)  # seeds the CPU and, through manual_seed_all, every npu
    npu_first = torch.randn(4, device="npu").cpu()
    torch.manual_seed(3)
    torch.randn(100)  # drawing on the CPU must not move the npu stream
    assert torch.equal(torch.randn(4, device="npu").cpu(), npu_first)


def test_rng_state_round_trips(npu: ModuleType) -> None:
    state = npu.get_rng_state()
    first = torch.rand(3, device="npu").cpu()
    npu.set_rng_state(state)
    assert torch.equal(torch.rand(3, device="npu").cpu(), first)
    assert len(npu.get_rng_state_all()) == npu.device_count()


def test_npu_generator_belongs_to_the_npu(npu: ModuleType) -> None:
    gen = torch.Generator(device="npu")
    assert gen.device == torch.device("npu:0")
    assert isinstance(gen, torch.Generator)
    assert isinstance(torch.default_generator, torch.Generator)
    a = torch.randn(3, device="npu", generator=gen.manual_seed(1))
    b = torch.randn(3, device="npu", generator=gen.manual_seed(1))
    assert torch.equal(a.cpu(), b.cpu())
    with pytest.raises(RuntimeError, match="Expected a 'npu' device type for generator"):
        torch.randn(3, device="npu", generator=torch.Generator())


def test_streams_and_events_run_and_time(npu: ModuleType) -> None:
    stream = npu.Stream()
    with npu.stream(stream):
        assert npu.current_stream() is stream
        start, end = npu.Event(enable_timing=True), npu.Event(enable_timing=True)
        start.record()
        torch.ones(8, device="npu").record_stream(stream)
        end.record()
    end.synchronize()
    assert npu.current_stream() is npu.default_stream()
    assert start.elapsed_time(end) >= 0.0
    assert stream.query() and end.query()


def test_hf32_switches_exist_and_reject_cuda_names(npu: ModuleType) -> None:
    assert npu.matmul.allow_hf32 is False  # torch_npu's defaults
    assert npu.conv.allow_hf32 is True
    npu.matmul.allow_hf32 = True
    assert npu.matmul.allow_hf32 is True
    npu.matmul.allow_hf32 = False
    with pytest.raises(AttributeError, match="allow_tf32"):
        npu.matmul.allow_tf32 = True


def test_amp_module_gives_npu_autocast_and_grad_scaler(npu: ModuleType) -> None:
    with npu.amp.autocast(dtype=torch.bfloat16):
        assert torch.is_autocast_enabled("npu")
        assert torch.get_autocast_dtype("npu") == torch.bfloat16
    assert npu.amp.GradScaler()._device == "npu"


def test_legacy_tensor_constructors_make_npu_tensors(npu: ModuleType) -> None:
    norm = npu.FloatTensor([2.5])  # how DeepSpeed builds small tensors on its accelerator
    assert norm.device.type == "npu" and norm.dtype == torch.float32 and norm.tolist() == [2.5]
    assert npu.ByteTensor(2, 3).shape == (2, 3)
    assert isinstance(norm, npu.FloatTensor) and not isinstance(norm, npu.LongTensor)


def test_lazy_call_runs_at_once_on_an_initialised_device(npu: ModuleType) -> None:
    calls: list[int] = []
    npu._lazy_call(lambda: calls.append(1))
    assert calls == [1]


# Before, with npu:1 current every "npu:0" below landed on npu:1 and `mixed` ran.
def test_an_explicit_card_index_is_honoured(
    run_python: Callable[..., subprocess.CompletedProcess[str]],
    python_env: Callable[..., dict[str, str]],
) -> None:
    done = run_python(
        """
        import json, torch
        torch.npu.set_device(1)
        a = torch.zeros(2, device="npu:0")
        seen = {
            "factory": str(a.device),
            "to": str(torch.randn(2).to("npu:0").device),
            "module": str(torch.nn.Linear(2, 2, device="npu:0").weight.device),
            "module_to": str(torch.nn.Linear(2, 2).to("npu:0").weight.device),
            "new": str(a.new_zeros(3, device=torch.device("npu", 0)).device),
            "op": str((a * 2).device),
            "current": str(torch.zeros(2, device="npu").device),
            "current_after": torch.npu.current_device(),
        }
        try:
            a + torch.ones(2, device="npu:1")
        except RuntimeError as error:
            seen["mixed"] = str(error)
        print(json.dumps(seen))
        """,
        env=python_env(emulated=True, devices=2),
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    for key in ("factory", "to", "module", "module_to", "new", "op"):
        assert seen[key] == "npu:0", key
    assert (seen["current"], seen["current_after"]) == ("npu:1", 1)
    assert seen["mixed"].startswith("Expected all tensors to be on the same device")


def _adds_zeros(x: torch.Tensor) -> torch.Tensor:
    return x + torch.zeros(2)


def test_torchscript_still_compiles_the_wrapped_factories(npu: ModuleType) -> None:
    assert torch.jit.script(_adds_zeros)(torch.ones(2)).tolist() == [1.0, 1.0]
