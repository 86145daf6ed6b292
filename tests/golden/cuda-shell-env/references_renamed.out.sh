#!/bin/bash
echo "visible: $ASCEND_RT_VISIBLE_DEVICES"
echo "first: ${ASCEND_RT_VISIBLE_DEVICES%%,*} default: ${ASCEND_RT_VISIBLE_DEVICES:-0} count: ${#ASCEND_RT_VISIBLE_DEVICES}"
IFS=',' read -ra DEVICES <<< "$ASCEND_RT_VISIBLE_DEVICES"
NUM=$(echo "${ASCEND_RT_VISIBLE_DEVICES}" | tr ',' '\n' | wc -l)
OLD=`echo $ASCEND_RT_VISIBLE_DEVICES`
if [[ -z "${ASCEND_RT_VISIBLE_DEVICES+x}" ]]; then
    export ASCEND_RT_VISIBLE_DEVICES=0
fi
LOG="${LOG_DIR}/run_${ASCEND_RT_VISIBLE_DEVICES//,/_}.log"
python train.py --devices "$ASCEND_RT_VISIBLE_DEVICES" --alloc "${PYTORCH_NPU_ALLOC_CONF}"
