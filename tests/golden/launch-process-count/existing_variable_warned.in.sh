NUM_PROCESSES=2
accelerate launch --num_processes 8 train.py
