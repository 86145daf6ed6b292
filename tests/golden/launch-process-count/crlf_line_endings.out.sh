echo start
# one process per visible NPU, at most the 16 this script was written for; choose the NPUs with ASCEND_RT_VISIBLE_DEVICES
NUM_PROCESSES=$(python -c "import torch, torch_npu; print(min(16, torch.npu.device_count()))")
if [ "${NUM_PROCESSES}" -lt 16 ]; then echo "only ${NUM_PROCESSES} NPUs visible: launching ${NUM_PROCESSES} processes instead of 16 (a smaller global batch)" >&2; fi
accelerate launch \
  --num_processes "${NUM_PROCESSES:?cannot count the visible NPUs}" \
  train.py
