#!/bin/bash
torchrun --nproc_per_node 8 train.py \
    --bf16 True \
    --tf32 True \
    --optim adamw_torch_fused
deepspeed train.py --fp16 --optim=adamw_torch_fused --tf32="true"
python train.py --tf32
