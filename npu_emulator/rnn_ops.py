"""The fused LSTM and GRU cells that PyTorch uses on a device, written with CPU ops.

``nn.LSTM`` / ``nn.GRU`` on a device tensor (CUDA, or a PrivateUse1 device such as this
"npu") take the fused cells ``aten::_thnn_fused_lstm_cell`` / ``_thnn_fused_gru_cell``,
which have CUDA kernels and no CPU kernel, so run as the CPU kernel they fail ("Could not
run 'aten::_thnn_fused_lstm_cell' with arguments from the 'CPU' backend"). A host runs
them (torch_npu has its own LSTM and GRU kernels), so here the cells and their backward
are computed from their definition, the math of PyTorch's CUDA kernels
(``aten/src/ATen/native/cuda/RNN.cu``). The workspace passed from forward to backward
holds the activated gates (LSTM: input, forget, cell, output; GRU: reset, update, new,
the hidden part of the new gate, and the previous hidden state).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch._ops import OpOverload

aten = torch.ops.aten


def fused_lstm_cell(
    input_gates: torch.Tensor,
    hidden_gates: torch.Tensor,
    cx: torch.Tensor,
    input_bias: torch.Tensor | None = None,
    hidden_bias: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gates = input_gates + hidden_gates
    if input_bias is not None:
        gates = gates + input_bias
    if hidden_bias is not None:
        gates = gates + hidden_bias
    i, f, g, o = gates.chunk(4, dim=1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    hy = o * cy.tanh()
    return hy, cy, torch.cat([i, f, g, o], dim=1)


def fused_lstm_cell_backward_impl(
    grad_hy: torch.Tensor | None,
    grad_cy: torch.Tensor | None,
    cx: torch.Tensor,
    cy: torch.Tensor,
    workspace: torch.Tensor,
    has_bias: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    i, f, g, o = workspace.chunk(4, dim=1)
    tanh_cy = cy.tanh()
    grad_c = torch.zeros_like(cy) if grad_cy is None else grad_cy.clone()
    grad_o = torch.zeros_like(o)
    if grad_hy is not None:
        grad_c = grad_c + grad_hy * o * (1 - tanh_cy * tanh_cy)
        grad_o = grad_hy * tanh_cy * o * (1 - o)
    grad_i = grad_c * g * i * (1 - i)
    grad_f = grad_c * cx * f * (1 - f)
    grad_g = grad_c * i * (1 - g * g)
    grad_gates = torch.cat([grad_i, grad_f, grad_g, grad_o], dim=1)
    # The caller keeps the bias gradient only where the cell had biases (`has_bias`).
    return grad_gates, grad_c * f, grad_gates.sum(0)


def fused_gru_cell(
    input_gates: torch.Tensor,
    hidden_gates: torch.Tensor,
    hx: torch.Tensor,
    input_bias: torch.Tensor | None = None,
    hidden_bias: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    if input_bias is not None:
        input_gates = input_gates + input_bias
    if hidden_bias is not None:
        hidden_gates = hidden_gates + hidden_bias
    i_r, i_z, i_n = input_gates.chunk(3, dim=1)
    h_r, h_z, h_n = hidden_gates.chunk(3, dim=1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    hy = n + z * (hx - n)
    return hy, torch.cat([r, z, n, h_n, hx], dim=1)


def fused_gru_cell_backward(
    grad_hy: torch.Tensor, workspace: torch.Tensor, has_bias: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    r, z, n, h_n, hx = workspace.chunk(5, dim=1)
    grad_n = grad_hy * (1 - z) * (1 - n * n)
    grad_z = grad_hy * (hx - n) * z * (1 - z)
    grad_r = grad_n * h_n * r * (1 - r)
    grad_input = torch.cat([grad_r, grad_z, grad_n], dim=1)
    grad_hidden = torch.cat([grad_r, grad_z, grad_n * r], dim=1)
    # The caller keeps the bias gradients only where the cell had biases (`has_bias`).
    return grad_input, grad_hidden, grad_hy * z, grad_input.sum(0), grad_hidden.sum(0)


#: Ops whose CPU kernel is missing, and what runs for them on npu tensors.
KERNELS: dict[OpOverload, Callable[..., object]] = {
    aten._thnn_fused_lstm_cell.default: fused_lstm_cell,
    aten._thnn_fused_lstm_cell_backward_impl.default: fused_lstm_cell_backward_impl,
    aten._thnn_fused_gru_cell.default: fused_gru_cell,
    aten._thnn_fused_gru_cell_backward.default: fused_gru_cell_backward,
}
