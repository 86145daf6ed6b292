"""torch_npu's fused Adam update operators, which DeepSpeed's NPU FusedAdam calls.

DeepSpeed's ``FusedAdam`` on an NPU (``op_builder/npu/fused_adam.py``) updates each
parameter with ``torch_npu.npu_apply_adam_w`` (AdamW mode, the default) or
``torch_npu.npu_apply_adam``, writing into ``out=(var, m, v)``. Both are written here
with PyTorch ops, in place, with the kernels' maths:

* ``npu_apply_adam_w`` follows op-plugin's reference (``test/test_base_ops/
  test_apply_adam_w.py``): the kernel multiplies the beta powers it is given by beta
  once more (DeepSpeed passes ``beta ** (step - 1)``), so with ``beta1_power =
  beta1 ** (t - 1)`` it is exactly ``torch.optim.AdamW`` at step t;
* ``npu_apply_adam`` is CANN's ApplyAdam, TensorFlow's ``ApplyAdam`` semantics: the powers
  are used as given (``beta ** t``), ``lr_t = lr * sqrt(1 - beta2_power) / (1 -
  beta1_power)``, ``var -= lr_t * m / (sqrt(v) + epsilon)``; that is
  ``torch.optim.Adam`` without weight decay, with epsilon scaled by sqrt(1 - beta2^t).

The NPU kernels' own rounding is not reproduced.
"""

from __future__ import annotations

import math

import torch

Triple = tuple[torch.Tensor, torch.Tensor, torch.Tensor]


def _outputs(name: str, out: Triple | None) -> Triple:
    if out is None or len(out) != 3:
        # The functional form has no kernel on a host either (op-plugin raises likewise).
        raise RuntimeError(f"{name} is not implemented for Tensor: pass out=(var, m, v)")
    return out


@torch.no_grad()
def npu_apply_adam_w(
    beta1_power: float,
    beta2_power: float,
    lr: float,
    weight_decay: float,
    beta1: float,
    beta2: float,
    epsilon: float,
    grad: torch.Tensor,
    max_grad_norm: torch.Tensor | None = None,
    amsgrad: bool = False,
    maximize: bool = False,
    *,
    out: Triple | None = None,
) -> Triple:
    """One AdamW step on ``out=(var, m, v)`` in place; returns them."""
    var, m, v = _outputs("npu_apply_adam_w", out)
    g = -grad if maximize else grad
    m.mul_(beta1).add_(g, alpha=1 - beta1)
    v.mul_(beta2).addcmul_(g, g, value=1 - beta2)
    var.mul_(1 - lr * weight_decay)
    bias1 = 1 - float(beta1_power) * beta1
    bias2 = 1 - float(beta2_power) * beta2
    second = v
    if amsgrad:
        if max_grad_norm is None:
            raise RuntimeError("npu_apply_adam_w: amsgrad needs max_grad_norm")
        torch.maximum(max_grad_norm, v, out=max_grad_norm)
        second = max_grad_norm
    denom = (second / bias2).sqrt_().add_(epsilon)
    var.addcdiv_(m, denom, value=-lr / bias1)
    return var, m, v


@torch.no_grad()
def npu_apply_adam(
    beta1_power: float,
    beta2_power: float,
    lr: float,
    beta1: float,
    beta2: float,
    epsilon: float,
    grad: torch.Tensor,
    use_locking: bool = False,
    use_nesterov: bool = False,
    *,
    out: Triple | None = None,
) -> Triple:
    """One Adam step (no weight decay) on ``out=(var, m, v)`` in place; returns them."""
    var, m, v = _outputs("npu_apply_adam", out)
    lr_t = lr * math.sqrt(1 - float(beta2_power)) / (1 - float(beta1_power))
    m.mul_(beta1).add_(grad, alpha=1 - beta1)
    v.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    denom = v.sqrt().add_(epsilon)
    step = m * beta1 + grad * (1 - beta1) if use_nesterov else m
    var.addcdiv_(step, denom, value=-lr_t)
    return var, m, v
