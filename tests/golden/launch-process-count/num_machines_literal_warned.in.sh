accelerate launch --num_machines 2 --machine_rank "$RANK" --num_processes 16 train.py
accelerate launch --num_machines 1 --num_processes 8 train.py
