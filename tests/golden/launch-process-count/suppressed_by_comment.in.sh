accelerate launch \
  --num_processes 8 \
  train.py  # migrate: ignore[DIT012]
accelerate launch --num_processes 8 train.py  # migrate: ignore[DIT012]
