#!/bin/bash
export DEVICE=npu
EVAL_DEVICE="npu:1"
torchrun --nproc_per_node 8 train.py \
    --device npu:0 --map_location=npu \
    --eval-device 'npu' $@
python eval.py --eval_device=npu:0
