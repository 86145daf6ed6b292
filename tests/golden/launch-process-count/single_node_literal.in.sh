export PYTHONPATH=$(pwd)
run_id=demo_run

# the training launch
accelerate launch \
  --config_file configs/deepspeed_zero2.yaml \
  --num_processes 64 \
  training/train.py \
  --config_yaml ./configs/demo.yaml \
  --run_id ${run_id}
