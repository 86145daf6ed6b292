#!/bin/bash
echo "visible: $CUDA_VISIBLE_DEVICES"
echo "first: ${CUDA_VISIBLE_DEVICES%%,*} default: ${CUDA_VISIBLE_DEVICES:-0} count: ${#CUDA_VISIBLE_DEVICES}"
IFS=',' read -ra DEVICES <<< "$CUDA_VISIBLE_DEVICES"
NUM=$(echo "${CUDA_VISIBLE_DEVICES}" | tr ',' '\n' | wc -l)
OLD=`echo $CUDA_VISIBLE_DEVICES`
if [[ -z "${CUDA_VISIBLE_DEVICES+x}" ]]; then
    export CUDA_VISIBLE_DEVICES=0
fi
LOG="${LOG_DIR}/run_${CUDA_VISIBLE_DEVICES//,/_}.log"
python train.py --devices "$CUDA_VISIBLE_DEVICES" --alloc "${PYTORCH_CUDA_ALLOC_CONF}"
