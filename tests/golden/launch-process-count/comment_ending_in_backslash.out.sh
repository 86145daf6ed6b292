#!/bin/bash
# one node, e.g. bash scripts/train_one.sh \
# one process per visible NPU, at most the 8 this script was written for; choose the NPUs with ASCEND_RT_VISIBLE_DEVICES (counted by the shell: importing the runtime fails where its environment is not set up)
if [ -n "${ASCEND_RT_VISIBLE_DEVICES:-}" ]; then NUM_PROCESSES=$(echo "${ASCEND_RT_VISIBLE_DEVICES}" | tr ',' '\n' | grep -c .); else NUM_PROCESSES=$(find /dev -maxdepth 1 -name 'davinci[0-9]*' | wc -l); fi
if [ "${NUM_PROCESSES}" -eq 0 ]; then echo "no NPU visible (ASCEND_RT_VISIBLE_DEVICES is unset and there is no /dev/davinciN): is the driver installed?" >&2; exit 1; fi
if [ "${NUM_PROCESSES}" -gt 8 ]; then NUM_PROCESSES=8; fi
if [ "${NUM_PROCESSES}" -lt 8 ]; then echo "only ${NUM_PROCESSES} NPUs visible: launching ${NUM_PROCESSES} processes instead of 8 (a smaller global batch)" >&2; fi
accelerate launch --num_processes "${NUM_PROCESSES:?cannot count the visible NPUs}" training/train.py
