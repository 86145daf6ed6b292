"""nn.LSTM trains on npu tensors as on the CPU (a host runs LSTMs with its own kernels)."""

from __future__ import annotations

from types import ModuleType

import torch


# Before, an LSTM on npu failed: "Could not run 'aten::_thnn_fused_lstm_cell' ... 'CPU'".
def test_an_lstm_on_npu_matches_the_cpu_forward_and_backward(npu: ModuleType) -> None:
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(5, 7, num_layers=2, batch_first=True)
    x = torch.randn(3, 4, 5)
    expected = lstm(x)[0]
    expected.square().sum().backward()
    expected_grads = [p.grad.clone() for p in lstm.parameters() if p.grad is not None]
    lstm.zero_grad()
    lstm.to("npu")
    out, (h, c) = lstm(x.to("npu"))
    out.square().sum().backward()
    assert out.device.type == h.device.type == c.device.type == "npu"
    torch.testing.assert_close(out.cpu(), expected, rtol=1e-5, atol=1e-6)
    grads = [p.grad.cpu() for p in lstm.parameters() if p.grad is not None]
    assert len(grads) == len(expected_grads) == 8
    for got, want in zip(grads, expected_grads, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
