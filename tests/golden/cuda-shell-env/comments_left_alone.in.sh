#!/bin/bash
# export CUDA_VISIBLE_DEVICES=0,1
# NCCL_SOCKET_TIMEOUT_MS=360000 was too low
export WANDB_MODE=offline  # CUDA_VISIBLE_DEVICES is set by Slurm
echo "done"  # $CUDA_VISIBLE_DEVICES
