from liger_kernel.transformers import (
    LigerFusedLinearCrossEntropyLoss,
    LigerRMSNorm,
    apply_liger_kernel_to_llama,
)

apply_liger_kernel_to_llama(rope=True, swiglu=True)
norm = LigerRMSNorm(4096)
loss_fn = LigerFusedLinearCrossEntropyLoss()
