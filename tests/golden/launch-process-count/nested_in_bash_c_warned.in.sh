timeout 3600 bash -c 'accelerate launch --num_processes 8 train.py'
