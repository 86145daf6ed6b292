#!/bin/bash
CKPT_PATH=${1:-/path/to/checkpoint/pytorch_model.pt}
GPU_ID=${2:-0}
PORT=5694

ASCEND_RT_VISIBLE_DEVICES=${GPU_ID} \
python deployment/model_server/server_policy.py \
    --ckpt_path "${CKPT_PATH}" \
    --port "${PORT}" &
SERVER_PID=$!
sleep 40
kill "${SERVER_PID}"
