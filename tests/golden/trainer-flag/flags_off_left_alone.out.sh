#!/bin/bash
# --flash_attn True was slow here
echo "--bf16 True --flash_attn True"
torchrun train.py --bf16 False --flash_attn False --attn_implementation sdpa \
    --bf16 $USE_BF16 --use_liger_kernel 0
cat <<EOT
--use_flash_attn
EOT
