#!/bin/bash
torchrun --nproc_per_node 8 train.py \
    --bf16 True \
    --tf32 False \
    --optim adamw_torch_fused
deepspeed train.py --fp16 --optim=adamw_torch --tf32="False"
python train.py --tf32 False
