#!/bin/bash
export PYTHONPATH=$(pwd)
export ASCEND_RT_VISIBLE_DEVICES=0

python examples/Real_G1/eval_files/eval_policy.py \
    --model_path /path/to/checkpoint/pytorch_model.pt \
    --video_backend decord
