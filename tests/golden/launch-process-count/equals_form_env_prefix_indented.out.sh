#!/bin/bash
if [ -n "$QUICK" ]; then
    # one process per visible NPU, at most the 4 this script was written for; choose the NPUs with ASCEND_RT_VISIBLE_DEVICES
    NUM_PROCESSES=$(python -c "import torch, torch_npu; print(min(4, torch.npu.device_count()))")
    if [ "${NUM_PROCESSES}" -lt 4 ]; then echo "only ${NUM_PROCESSES} NPUs visible: launching ${NUM_PROCESSES} processes instead of 4 (a smaller global batch)" >&2; fi
    WANDB_MODE=offline accelerate launch --num_processes="${NUM_PROCESSES:?cannot count the visible NPUs}" training/train.py --quick
fi
