accelerate launch --config_file configs/deepspeed_zero2.yaml \
  train.py
echo "accelerate launch is done"
