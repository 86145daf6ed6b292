"""torch_npu's custom operators that libraries call by themselves on an Ascend host."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest
import torch
import torch.nn.functional as F

from npu_emulator import NotEmulatedError


@pytest.fixture
def torch_npu(npu: ModuleType) -> ModuleType:
    return importlib.import_module("torch_npu")


def test_rms_norm_normalises_over_gamma_dims(torch_npu: ModuleType) -> None:
    x = torch.randn(2, 3, 8, device="npu", dtype=torch.bfloat16)
    gamma = torch.rand(8, device="npu", dtype=torch.bfloat16)
    y, rstd = torch_npu.npu_rms_norm(x, gamma, epsilon=1e-5)
    x32 = x.float().cpu()
    expected = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + 1e-5) * gamma.float().cpu()
    assert y.dtype == torch.bfloat16 and y.device.type == "npu"
    assert rstd.dtype == torch.float32 and rstd.shape == (2, 3, 1)
    torch.testing.assert_close(y.float().cpu(), expected, atol=2e-2, rtol=2e-2)


def test_geglu_gates_the_first_half_with_the_second(torch_npu: ModuleType) -> None:
    x = torch.randn(4, 6, device="npu")
    out, gelu = torch_npu.npu_geglu(x, dim=-1, approximate=1)
    a, b = x.cpu().chunk(2, dim=-1)
    torch.testing.assert_close(gelu.cpu(), F.gelu(b, approximate="tanh"))
    torch.testing.assert_close(out.cpu(), a * F.gelu(b, approximate="tanh"))
    left, _ = torch_npu.npu_geglu(x, approximate=0, activate_left=True)
    torch.testing.assert_close(left.cpu(), F.gelu(a) * b)


def _qkv(shape: tuple[int, ...]) -> list[torch.Tensor]:
    return [torch.randn(*shape, device="npu", requires_grad=True) for _ in range(3)]


def test_fusion_attention_matches_sdpa_in_each_layout(torch_npu: ModuleType) -> None:
    q, k, v = _qkv((2, 4, 5, 8))  # BNSD
    expected = F.scaled_dot_product_attention(q, k, v)
    scale = 8**-0.5
    got = torch_npu.npu_fusion_attention(q, k, v, 4, "BNSD", scale=scale)[0]
    torch.testing.assert_close(got.cpu(), expected.detach().cpu())
    bsnd = [t.transpose(1, 2) for t in (q, k, v)]
    got = torch_npu.npu_fusion_attention(*bsnd, 4, "BSND", scale=scale)[0]
    torch.testing.assert_close(got.transpose(1, 2).cpu(), expected.detach().cpu())
    bsh = [t.transpose(1, 2).reshape(2, 5, 32) for t in (q, k, v)]
    got = torch_npu.npu_fusion_attention(*bsh, 4, "BSH", scale=scale)[0]
    torch.testing.assert_close(got.cpu(), expected.transpose(1, 2).reshape(2, 5, 32).detach().cpu())
    got.sum().backward()
    assert q.grad is not None and q.grad.device.type == "npu"


def test_fusion_attention_masks_hide_true_positions(torch_npu: ModuleType) -> None:
    q, k, v = _qkv((1, 2, 3, 4))
    keep = torch.tensor([[True, True, False]] * 3, device="npu")  # SDPA: True = attend
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    got = torch_npu.npu_fusion_attention(q, k, v, 2, "BNSD", atten_mask=~keep, scale=0.5)[0]
    torch.testing.assert_close(got.cpu(), expected.detach().cpu())


def test_fusion_attention_causal_modes(torch_npu: ModuleType) -> None:
    q = torch.randn(1, 2, 3, 4, device="npu")
    k, v = torch.randn(1, 2, 5, 4, device="npu"), torch.randn(1, 2, 5, 4, device="npu")
    compressed = torch.triu(torch.ones(2048, 2048, device="npu"), diagonal=1).bool()
    top_left = torch.ones(3, 5).tril().bool().npu()
    bottom_right = torch.ones(3, 5).tril(diagonal=2).bool().npu()
    for mode, keep in ((2, top_left), (3, bottom_right)):
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        got = torch_npu.npu_fusion_attention(
            q, k, v, 2, "BNSD", atten_mask=compressed, scale=0.5, sparse_mode=mode
        )[0]
        torch.testing.assert_close(got.cpu(), expected.cpu())


def test_fusion_attention_with_grouped_key_value_heads(torch_npu: ModuleType) -> None:
    q = torch.randn(1, 4, 3, 8, device="npu")
    k, v = torch.randn(1, 2, 3, 8, device="npu"), torch.randn(1, 2, 3, 8, device="npu")
    expected = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    got = torch_npu.npu_fusion_attention(q, k, v, 4, "BNSD", scale=8**-0.5)[0]
    torch.testing.assert_close(got.cpu(), expected.cpu())


def test_fusion_attention_options_outside_the_common_cases_name_themselves(
    torch_npu: ModuleType,
) -> None:
    q, k, v = _qkv((1, 2, 3, 4))
    with pytest.raises(NotEmulatedError, match=r"npu_fusion_attention with input_layout='TND'"):
        torch_npu.npu_fusion_attention(q, k, v, 2, "TND")
    with pytest.raises(NotEmulatedError, match="with pse"):
        torch_npu.npu_fusion_attention(q, k, v, 2, "BNSD", pse=q)


def test_libraries_can_import_the_operators(npu: ModuleType) -> None:
    namespace: dict[str, object] = {}
    exec("from torch_npu import npu_fusion_attention, npu_rms_norm", namespace)
    assert callable(namespace["npu_fusion_attention"])


# Before these were added, `torch.npu.random` and both Adam operators raised
# NotEmulatedError ("... is not emulated").
def test_npu_random_saves_and_restores_the_rng_state_as_the_trainer_does(npu: ModuleType) -> None:
    import torch.npu.random as npu_random  # the transformers Trainer's spelling

    assert npu_random is torch.npu.random
    states = torch.npu.random.get_rng_state_all()
    first = torch.rand(4, device="npu")
    torch.npu.random.set_rng_state_all(states)
    assert torch.equal(torch.rand(4, device="npu").cpu(), first.cpu())
    torch.npu.random.set_rng_state(states[0])
    assert torch.equal(torch.rand(4, device="npu").cpu(), first.cpu())


def _adam_case(steps: int = 3) -> tuple[torch.Tensor, list[torch.Tensor]]:
    generator = torch.Generator().manual_seed(0)
    start = torch.randn(16, generator=generator)
    grads = [torch.randn(16, generator=generator) for _ in range(steps)]
    return start, grads


def _torch_reference(optimizer: type[torch.optim.Optimizer], **options: float) -> torch.Tensor:
    start, grads = _adam_case()
    param = torch.nn.Parameter(start.clone())
    reference = optimizer([param], **options)  # type: ignore[call-arg]
    for grad in grads:
        param.grad = grad.clone()
        reference.step()
    return param.detach()


def test_apply_adam_w_with_deepspeeds_arguments_is_torchs_adamw(torch_npu: ModuleType) -> None:
    lr, wd, (b1, b2), eps = 1e-2, 0.1, (0.9, 0.999), 1e-8
    start, grads = _adam_case()
    var, m, v = (t.to("npu") for t in (start.clone(), torch.zeros(16), torch.zeros(16)))
    for step, grad in enumerate(grads, start=1):
        # DeepSpeed's NPUFusedAdam.multi_tensor_adam passes beta ** (step - 1).
        out = torch_npu.npu_apply_adam_w(
            b1 ** (step - 1), b2 ** (step - 1), lr, wd, b1, b2, eps, grad.to("npu"),
            None, False, False, out=(var, m, v),
        )  # fmt: skip
        assert out[0] is var
    expected = _torch_reference(torch.optim.AdamW, lr=lr, weight_decay=wd, eps=eps)
    torch.testing.assert_close(var.cpu(), expected, rtol=1e-5, atol=1e-6)


def test_apply_adam_is_torchs_adam(torch_npu: ModuleType) -> None:
    lr, (b1, b2), eps = 1e-2, (0.9, 0.999), 1e-8
    start, grads = _adam_case()
    var, m, v = (t.to("npu") for t in (start.clone(), torch.zeros(16), torch.zeros(16)))
    for step, grad in enumerate(grads, start=1):
        torch_npu.npu_apply_adam(
            b1**step, b2**step, lr, b1, b2, eps, grad.to("npu"), False, False, out=(var, m, v)
        )
    expected = _torch_reference(torch.optim.Adam, lr=lr, eps=eps)
    torch.testing.assert_close(var.cpu(), expected, rtol=1e-5, atol=1e-6)


def test_deepspeeds_npu_fused_adam_trains_with_the_emulated_kernel(
    torch_npu: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    from npu_emulator.stand_ins import SHIMS

    # What emulation_env() sets for child processes; DeepSpeed's NPU builders read it.
    monkeypatch.setenv("ASCEND_HOME_PATH", str(SHIMS / "cann"))
    fused = pytest.importorskip("deepspeed.ops.op_builder.npu.fused_adam")
    # Imported earlier in this process, before torch_npu was importable, the module would
    # lack the name (it imports torch_npu in a try block); on a host it has it.
    monkeypatch.setattr(fused, "torch_npu", torch_npu, raising=False)
    lr, wd, (b1, b2), eps = 1e-2, 0.1, (0.9, 0.999), 1e-8
    start, grads = _adam_case()
    param, m, v = (t.to("npu") for t in (start.clone(), torch.zeros(16), torch.zeros(16)))
    for step, grad in enumerate(grads, start=1):
        fused.NPUFusedAdam.multi_tensor_adam(
            0, None, [[grad.to("npu")], [param], [m], [v]], lr, b1, b2, eps, step, 1, 1, wd
        )
    expected = _torch_reference(torch.optim.AdamW, lr=lr, weight_decay=wd, eps=eps)
    torch.testing.assert_close(param.cpu(), expected, rtol=1e-5, atol=1e-6)
