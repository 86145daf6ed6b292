export PYTHONPATH=$(pwd)
export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7
export NCCL_TIMEOUT=10000

run_root_dir=./playground/Checkpoints_libero
run_id=dit4dit_libero_all

# one process per visible NPU, at most the 64 this script was written for; choose the NPUs with ASCEND_RT_VISIBLE_DEVICES
NUM_PROCESSES=$(python -c "import torch, torch_npu; print(min(64, torch.npu.device_count()))")
if [ "${NUM_PROCESSES}" -lt 64 ]; then echo "only ${NUM_PROCESSES} NPUs visible: launching ${NUM_PROCESSES} processes instead of 64 (a smaller global batch)" >&2; fi
accelerate launch \
  --config_file DiT4DiT/config/deepseeds/deepspeed_zero2.yaml \
  --num_processes "${NUM_PROCESSES:?cannot count the visible NPUs}" \
  DiT4DiT/training/train.py \
  --config_yaml ./DiT4DiT/config/libero/dit4dit_libero.yaml \
  --trainer.freeze_modules backbone_interface.extractor.text_encoder,backbone_interface.extractor.vae \
  --run_root_dir ${run_root_dir} \
  --run_id ${run_id}
