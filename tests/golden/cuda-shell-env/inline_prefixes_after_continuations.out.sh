#!/bin/bash
GPU_ID=${2:-0}

ASCEND_RT_VISIBLE_DEVICES=${GPU_ID} \
    python serve.py \
        --port 8000 \
        > "logs/server_gpu${GPU_ID}.log" 2>&1 &

MASTER_PORT=29500 \
ASCEND_RT_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 train.py

if [ "$RESUME" = 1 ]; then ASCEND_RT_VISIBLE_DEVICES=3 python resume.py; fi
( ASCEND_LAUNCH_BLOCKING=1 python debug.py & )
for i in 0 1; do ASCEND_RT_VISIBLE_DEVICES=$i python eval.py --shard "$i" & done
