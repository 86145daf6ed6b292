#!/bin/bash
export DEVICE=cuda
EVAL_DEVICE="cuda:1"
torchrun --nproc_per_node 8 train.py \
    --device cuda:0 --map_location=cuda \
    --eval-device 'cuda' $@
python eval.py --eval_device=cuda:0
