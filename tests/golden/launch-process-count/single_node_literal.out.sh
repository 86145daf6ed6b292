export PYTHONPATH=$(pwd)
run_id=demo_run

# the training launch
# one process per visible NPU, at most the 64 this script was written for; choose the NPUs with ASCEND_RT_VISIBLE_DEVICES
NUM_PROCESSES=$(python -c "import torch, torch_npu; print(min(64, torch.npu.device_count()))")
if [ "${NUM_PROCESSES}" -lt 64 ]; then echo "only ${NUM_PROCESSES} NPUs visible: launching ${NUM_PROCESSES} processes instead of 64 (a smaller global batch)" >&2; fi
accelerate launch \
  --config_file configs/deepspeed_zero2.yaml \
  --num_processes "${NUM_PROCESSES:?cannot count the visible NPUs}" \
  training/train.py \
  --config_yaml ./configs/demo.yaml \
  --run_id ${run_id}
