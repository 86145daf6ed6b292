accelerate launch --num_machines 2 --machine_rank "$RANK" --num_processes 16 train.py
# one process per visible NPU, at most the 8 this script was written for; choose the NPUs with ASCEND_RT_VISIBLE_DEVICES
NUM_PROCESSES=$(python -c "import torch, torch_npu; print(min(8, torch.npu.device_count()))")
if [ "${NUM_PROCESSES}" -lt 8 ]; then echo "only ${NUM_PROCESSES} NPUs visible: launching ${NUM_PROCESSES} processes instead of 8 (a smaller global batch)" >&2; fi
accelerate launch --num_machines 1 --num_processes "${NUM_PROCESSES:?cannot count the visible NPUs}" train.py
