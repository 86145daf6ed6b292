# one process per visible NPU, at most the 64 this script was written for
NUM_PROCESSES=$(python -c "import torch, torch_npu; print(min(64, torch.npu.device_count()))")
accelerate launch \
  --num_processes "${NUM_PROCESSES:?cannot count the visible NPUs}" \
  training/train.py
