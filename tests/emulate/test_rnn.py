"""nn.LSTM / nn.GRU train on npu tensors as on the CPU (a host runs them with its kernels)."""

from __future__ import annotations

from types import ModuleType

import pytest
import torch


# Before, they failed on npu: "Could not run 'aten::_thnn_fused_lstm_cell' ... 'CPU'".
@pytest.mark.parametrize("kind", [torch.nn.LSTM, torch.nn.GRU])
def test_a_recurrent_layer_on_npu_matches_the_cpu(npu: ModuleType, kind: type) -> None:
    torch.manual_seed(0)
    layer = kind(5, 7, num_layers=2, batch_first=True)
    x = torch.randn(3, 4, 5)
    expected = layer(x)[0]
    expected.square().sum().backward()
    expected_grads = [p.grad.clone() for p in layer.parameters() if p.grad is not None]
    layer.zero_grad()
    layer.to("npu")
    out, _state = layer(x.to("npu"))
    out.square().sum().backward()
    assert out.device.type == "npu"
    torch.testing.assert_close(out.cpu(), expected, rtol=1e-5, atol=1e-6)
    grads = [p.grad.cpu() for p in layer.parameters() if p.grad is not None]
    assert len(grads) == len(expected_grads) == 8
    for got, want in zip(grads, expected_grads, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
