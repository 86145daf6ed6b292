#!/bin/bash
if [ -n "$QUICK" ]; then
    WANDB_MODE=offline accelerate launch --num_processes=4 training/train.py --quick
fi
