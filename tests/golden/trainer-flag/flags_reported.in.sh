#!/bin/bash
torchrun --nproc_per_node 8 train.py \
    --model_name_or_path $MODEL \
    --bf16 True \
    --flash_attn True \
    --attn_implementation=flash_attention_2 \
    --use_liger_kernel true
python finetune.py --use_flash_attn --output_dir out
