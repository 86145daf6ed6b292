echo start
accelerate launch \
  --num_processes 16 \
  train.py
