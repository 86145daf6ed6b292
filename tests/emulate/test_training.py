"""A training step's device paths: backward, fused AdamW, SDPA, clipping, scaling."""

from __future__ import annotations

from types import ModuleType

import pytest
import torch
import torch.nn.functional as F

from npu_emulator.trace import record_ops


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


def test_fused_adamw_takes_the_fused_kernel(npu: ModuleType) -> None:
    model = _model().npu()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, fused=True)
    before = [p.detach().cpu().clone() for p in model.parameters()]
    F.mse_loss(model(torch.randn(8, 6, device="npu")), torch.zeros(8, 1, device="npu")).backward()
    with record_ops() as log:
        optimizer.step()
    names = log.names()
    assert names.count("aten._fused_adamw_.default") == 1
    # The unfused paths would run per-parameter lerp_/addcdiv_ or their _foreach_ forms.
    assert not [n for n in names if "lerp" in n or "addcdiv" in n]
    fused = log.calls("aten._fused_adamw_")[0]
    assert set(fused.dtypes) == {torch.float32} and fused.index == 0
    after = [p.detach().cpu() for p in model.parameters()]
    assert all(not torch.equal(a, b) for a, b in zip(before, after, strict=True))


def test_fused_adamw_matches_the_cpu_result(npu: ModuleType) -> None:
    cpu_model, npu_model = _model(), _model().npu()
    batch, target = torch.randn(8, 6), torch.randn(8, 1)
    for model, device in ((cpu_model, "cpu"), (npu_model, "npu")):
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, fused=True)
        for _ in range(3):
            optimizer.zero_grad()
            F.mse_loss(model(batch.to(device)), target.to(device)).backward()
            optimizer.step()
    for a, b in zip(cpu_model.parameters(), npu_model.parameters(), strict=True):
        torch.testing.assert_close(a.detach(), b.detach().cpu())


def test_training_lowers_the_loss(npu: ModuleType) -> None:
    model = _model().npu()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, fused=True)
    x = torch.randn(32, 6, device="npu")
    y = x.sum(dim=1, keepdim=True)
    losses = []
    for _ in range(20):
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


def test_sdpa_runs_on_the_npu_and_matches_cpu(npu: ModuleType) -> None:
    q, k, v = (torch.randn(2, 3, 5, 8, requires_grad=True) for _ in range(3))
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    nq, nk, nv = (t.detach().npu().requires_grad_() for t in (q, k, v))
    got = F.scaled_dot_product_attention(nq, nk, nv, is_causal=True)
    assert got.device.type == "npu"
    torch.testing.assert_close(got.detach().cpu(), expected.detach())
    got.sum().backward()
    assert nq.grad is not None and nq.grad.device.type == "npu"
    with torch.autocast("npu", dtype=torch.bfloat16):
        assert F.scaled_dot_product_attention(nq, nk, nv).dtype == torch.bfloat16


def test_clip_grad_norm_clips_npu_gradients(npu: ModuleType) -> None:
    model = _model().npu()
    (model(torch.randn(4, 6, device="npu")) * 100).sum().backward()
    expected = torch.linalg.vector_norm(
        torch.stack([torch.linalg.vector_norm(p.grad.cpu()) for p in model.parameters()])
    )
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    assert total.device.type == "npu"
    torch.testing.assert_close(total.cpu(), expected)
    clipped = torch.linalg.vector_norm(
        torch.stack([torch.linalg.vector_norm(p.grad.cpu()) for p in model.parameters()])
    )
    assert abs(clipped.item() - 1.0) < 1e-3


def test_grad_scaler_skips_a_step_with_inf_gradients(npu: ModuleType) -> None:
    model = torch.nn.Linear(2, 1).npu()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.npu.amp.GradScaler(init_scale=4.0)
    weight = model.weight.detach().cpu().clone()
    loss = model(torch.tensor([[float("inf"), 1.0]], device="npu")).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    assert torch.equal(model.weight.detach().cpu(), weight)  # step skipped
    assert scaler.get_scale() == 2.0  # and the scale backed off


def _scaled_step(scaler: torch.amp.GradScaler, optimizer_type: type, fused: bool) -> None:
    model = torch.nn.Linear(2, 1).npu()
    optimizer = optimizer_type(model.parameters(), lr=0.1, fused=fused)
    scaler.scale(model(torch.ones(3, 2, device="npu")).sum()).backward()
    scaler.step(optimizer)
    scaler.update()


# Before, torch_npu's scaler was torch's own and these passed, unlike on a host.
@pytest.mark.parametrize(
    ("optimizer_type", "step_name"),
    [(torch.optim.AdamW, "Adam"), (torch.optim.Adam, "Adam"), (torch.optim.SGD, "SGD")],
)
def test_torch_npus_grad_scaler_fails_fused_optimizers_as_on_a_host(
    npu: ModuleType, optimizer_type: type, step_name: str
) -> None:
    with pytest.raises(TypeError) as error:
        _scaled_step(torch.npu.amp.GradScaler(), optimizer_type, fused=True)
    assert str(error.value) == (
        f"{step_name}.step() got an unexpected keyword argument 'grad_scaler'"
    )


@pytest.mark.parametrize(
    ("scaler", "fused"),
    [("torch.amp", True), ("torch_npu", False)],
)
def test_fused_optimizers_work_with_torchs_scaler_and_torch_npus_without_fused(
    npu: ModuleType, scaler: str, fused: bool
) -> None:
    chosen = torch.amp.GradScaler("npu") if scaler == "torch.amp" else torch.npu.amp.GradScaler()
    _scaled_step(chosen, torch.optim.AdamW, fused=fused)
