#!/usr/bin/env bash
# Train on two GPUs of one node.
set -euo pipefail
cd "$(dirname "$0")/.."

export CUDA_VISIBLE_DEVICES=0,1
export NCCL_SOCKET_TIMEOUT_MS=360000
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True

torchrun --nproc_per_node 2 train.py --steps 100 --out checkpoints
