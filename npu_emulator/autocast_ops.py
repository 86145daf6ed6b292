"""Which aten ops autocast casts on the npu device, and how.

torch_npu registers these lists in C++ for its autocast key; PyTorch 2.13 ships none for
PrivateUse1, so the emulator registers them itself (see autocast.py). The lists follow
PyTorch's documented CUDA autocast op reference, which torch_npu mirrors. Names are
``op`` or ``op.overload`` as in ``torch.ops.aten``; a test checks that each one exists.
"""

from __future__ import annotations

#: Run in the autocast dtype (float16 / bfloat16).
LOWER_PRECISION = (
    "_convolution",
    "_convolution.deprecated",
    "conv1d",
    "conv1d.padding",
    "conv2d",
    "conv2d.padding",
    "conv3d",
    "conv3d.padding",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d.input",
    "conv_transpose3d.input",
    "convolution",
    "prelu",
    "addmm",
    "addmv",
    "addr",
    "matmul",
    "einsum",
    "mm",
    "mv",
    "linear",
    "addbmm",
    "baddbmm",
    "bmm",
    "chain_matmul",
    "linalg_multi_dot",
    "_thnn_fused_lstm_cell",
    "_thnn_fused_gru_cell",
    "lstm_cell",
    "gru_cell",
    "rnn_tanh_cell",
    "rnn_relu_cell",
    "scaled_dot_product_attention",
)

#: Run in float32 (inputs in a lower precision are cast up).
FLOAT32 = (
    "acos",
    "asin",
    "cosh",
    "erfinv",
    "exp",
    "expm1",
    "log",
    "log10",
    "log2",
    "log1p",
    "reciprocal",
    "rsqrt",
    "sinh",
    "tan",
    "pow.Tensor_Scalar",
    "pow.Tensor_Tensor",
    "pow.Scalar",
    "softplus",
    "layer_norm",
    "native_layer_norm",
    "group_norm",
    "frobenius_norm.dim",
    "nuclear_norm",
    "nuclear_norm.dim",
    "cosine_similarity",
    "poisson_nll_loss",
    "cosine_embedding_loss",
    "nll_loss",
    "nll_loss2d",
    "hinge_embedding_loss",
    "kl_div",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "mse_loss",
    "margin_ranking_loss",
    "multilabel_margin_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "multi_margin_loss",
    "binary_cross_entropy_with_logits",
    "dist",
    "pdist",
    "cdist",
    "renorm",
    "logsumexp",
)

#: Have an optional ``dtype`` argument: float32 unless the caller chose one.
FLOAT32_UNLESS_DTYPE = (
    "prod",
    "prod.dim_int",
    "softmax.int",
    "log_softmax.int",
    "cumprod",
    "cumsum",
    "linalg_vector_norm",
    "sum",
    "sum.dim_IntList",
)

#: Run in the widest floating dtype among the inputs.
PROMOTE = (
    "addcdiv",
    "addcmul",
    "atan2",
    "bilinear",
    "cross",
    "dot",
    "grid_sampler",
    "index_put",
    "scatter_add",
    "tensordot",
)

#: Refused inside an autocast region, as on CUDA.
BANNED = ("binary_cross_entropy",)
